package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/internal/trinotest"
)

// trinoLedger makes the parity test's inputs: a PostgreSQL source table of
// 300 ledger entries (E0200 on two rows) and an Iceberg sink table written
// through Trino in three commits — the entries less three missing ones
// (E0005, E0077, E0250) with four altered (E0010's amount, E0020's status,
// E0030's booking date, E0040's status NULL); then E0101..E0110 written
// again under a later checkpoint (E0105 with another amount); then an
// unexpected entry X0001 and a row with no id. The copies of E0150 (35.50
// and 37.50 in the source; 35.50, 40.50 and 42.50 in the sink) and of
// E0160 (39.20, 40.20 and 42.20; 48.20) are paired by value_mismatches'
// rule for repeated ids: an equal copy pairs off, the n-th left with the
// n-th left, a copy left over with every copy of the other input. It
// returns the PostgreSQL
// schema and the Iceberg schema.
func trinoLedger(t *testing.T) (pgSchema, iceSchema string) {
	t.Helper()
	iceSchema, tdb := trinotest.Schema(t, "iceberg")
	pgSchema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`
		CREATE TABLE %[1]s.ledger (entry_id text, account text, amount numeric(12,2), status text, booked date);
		INSERT INTO %[1]s.ledger
		SELECT 'E' || lpad(i::text, 4, '0'), 'ACC-' || (i %% 7), ((i * 37) %% 10000) / 100.0 - 20,
		       CASE WHEN i %% 3 = 0 THEN 'reversed' ELSE 'posted' END, DATE '2026-11-01' + (i %% 28)
		FROM generate_series(1, 300) AS i;
		INSERT INTO %[1]s.ledger SELECT * FROM %[1]s.ledger WHERE entry_id = 'E0200';
		INSERT INTO %[1]s.ledger SELECT entry_id, account, amount + 2, status, booked FROM %[1]s.ledger WHERE entry_id = 'E0150';
		INSERT INTO %[1]s.ledger SELECT entry_id, account, amount + d, status, booked FROM %[1]s.ledger, (VALUES (1), (3)) AS v(d) WHERE entry_id = 'E0160';`, pgSchema))
	src := "postgresql." + pgSchema + ".ledger"
	sink := "iceberg." + iceSchema + ".postings"
	trinotest.Exec(t, tdb, fmt.Sprintf(`CREATE TABLE %s AS
		SELECT DISTINCT entry_id, account,
		       CASE entry_id WHEN 'E0010' THEN amount + 0.01 ELSE amount END AS amount,
		       CASE entry_id WHEN 'E0020' THEN 'chargeback' WHEN 'E0040' THEN NULL ELSE status END AS status,
		       CASE entry_id WHEN 'E0030' THEN booked + INTERVAL '1' DAY ELSE booked END AS booked,
		       CAST(substr(entry_id, 2) AS bigint) / 50 + 1 AS checkpoint_id
		FROM %s WHERE entry_id NOT IN ('E0005', 'E0077', 'E0250', 'E0150', 'E0160')`, sink, src))
	trinotest.Exec(t, tdb, fmt.Sprintf(`INSERT INTO %s
		SELECT entry_id, account, amount + d, status, booked, BIGINT '4'
		FROM %s CROSS JOIN (VALUES DECIMAL '0', DECIMAL '5', DECIMAL '7') AS v(d) WHERE entry_id = 'E0150' AND amount = DECIMAL '35.50'
		UNION ALL
		SELECT entry_id, account, amount + 9, status, booked, BIGINT '4' FROM %s WHERE entry_id = 'E0160' AND amount = DECIMAL '39.20'`, sink, src, src))
	trinotest.Exec(t, tdb, fmt.Sprintf(`INSERT INTO %s
		SELECT entry_id, account, CASE entry_id WHEN 'E0105' THEN amount + 1 ELSE amount END, status, booked, BIGINT '9'
		FROM %s WHERE entry_id BETWEEN 'E0101' AND 'E0110'`, sink, src))
	trinotest.Exec(t, tdb, fmt.Sprintf(`INSERT INTO %s VALUES
		('X0001', 'ACC-1', DECIMAL '5.00', 'posted', DATE '2026-11-02', BIGINT '9'),
		(NULL, 'ACC-2', DECIMAL '1.00', 'posted', DATE '2026-11-03', BIGINT '9')`, sink))
	return pgSchema, iceSchema
}

// TestTrinoParity: a Trino run over an Iceberg sink and a PostgreSQL source
// (each check one query across the two catalogs) finds the planted
// missing, duplicated and altered records with the same exception files as
// the embedded run over the same two tables (the sink read through
// iceberg-go from the Trino JDBC catalog's PostgreSQL tables), but for the
// columns that say where a row lies, which legitimately differ (a location
// is a data file or a table on Trino, file:line or file:line@snapshot
// embedded: Trino does not tell a row's position); every check has the
// same verdict, but the Iceberg kind's commit-history checks, which only an
// embedded run lists. The Trino run's evidence names the engine, its nodes
// and the snapshot read, and verify passes on it.
func TestTrinoParity(t *testing.T) {
	trinotest.Connect(t)
	pgSchema, iceSchema := trinoLedger(t)
	common := "id: [entry_id]\nmeasures: [amount]\ngroup_by: [account]\ncheckpoint: checkpoint_id\nlogical_key: [entry_id]\n"
	embOut, emb, triOut, tri := runBothEngines(t, pgSchema, "ledger", iceSchema, common)

	// Every check the Trino run lists, with the embedded run's verdict and
	// count; the embedded run lists the commit-history checks besides.
	embChecks := map[string]parityCheck{}
	for _, c := range emb.Checks {
		embChecks[c.ID] = c
	}
	var compared []string
	for _, c := range tri.Checks {
		e, ok := embChecks[c.ID]
		switch {
		case !ok:
			t.Errorf("check %s ran on Trino only", c.ID)
		case c.Status != e.Status || c.Exceptions != e.Exceptions:
			t.Errorf("check %s: %s with %d exceptions on Trino, %s with %d embedded", c.ID, c.Status, c.Exceptions, e.Status, e.Exceptions)
		case c.Status == "skipped":
			t.Errorf("check %s not run on Trino: %s", c.ID, c.SkipReason)
		default:
			compared = append(compared, c.ID)
		}
		delete(embChecks, c.ID)
	}
	for id := range embChecks {
		if !strings.HasPrefix(id, "commit_history") {
			t.Errorf("check %s ran embedded only", id)
		}
	}
	if tri.Status != "fail" || emb.Status != "fail" || string(tri.Totals) != string(emb.Totals) {
		t.Errorf("status %s, totals %s on Trino; %s, %s embedded", tri.Status, tri.Totals, emb.Status, emb.Totals)
	}
	// The same exception files, but for the columns that say where a row
	// lies.
	for _, id := range compared {
		var c parityCheck
		for _, x := range tri.Checks {
			if x.ID == id {
				c = x
			}
		}
		where := map[string]bool{}
		for _, col := range c.Columns {
			if col.Role == "location" || id == "null_ids" && (col.Name == "file" || col.Name == "line") {
				where[col.Name] = true
			}
		}
		a, b := withoutColumns(t, filepath.Join(triOut, c.File), where), withoutColumns(t, filepath.Join(embOut, c.File), where)
		if !slices.Equal(a, b) {
			t.Errorf("%s differs but for %v:\nTrino    %q\nembedded %q", id, where, a, b)
		}
	}
	// The planted records.
	for _, want := range []struct{ check, row string }{
		{"missing_ids", "E0005,1,"}, {"missing_ids", "E0077,1,"}, {"missing_ids", "E0250,1,"},
		{"unexpected_ids", "X0001,1,5.00,9"},
		{"null_ids", ",sink,"},
		{"duplicate_ids", "E0105,sink,2,true,3;9"}, {"duplicate_ids", "E0101,sink,2,false,3;9"}, {"duplicate_ids", "E0200,source,2,false,"},
		{"value_mismatches", "E0010,amount,"}, {"value_mismatches", "E0020,status,posted,chargeback,"},
		{"value_mismatches", "E0030,booked,2026-11-03,2026-11-04,1 day"}, {"value_mismatches", "E0040,status,posted,,"},
		{"value_mismatches", "E0105,amount,"}, {"key_checkpoint_conflicts", "E0110,2,3;9,2"},
		{"value_mismatches", "E0150,amount,37.50,40.50,3.00"}, {"value_mismatches", "E0150,amount,35.50,42.50,7.00"},
		{"value_mismatches", "E0150,amount,37.50,42.50,5.00"}, {"value_mismatches", "E0160,amount,39.20,48.20,9.00"},
		{"value_mismatches", "E0160,amount,40.20,48.20,8.00"}, {"value_mismatches", "E0160,amount,42.20,48.20,6.00"},
		{"duplicate_ids", "E0150,source,2,true"}, {"duplicate_ids", "E0150,sink,3,true,4"},
	} {
		rows := exceptionRows(t, triOut, want.check)
		if !slices.ContainsFunc(rows, func(r string) bool { return strings.HasPrefix(r, want.row) }) {
			t.Errorf("%s on Trino: no row %q in %q", want.check, want.row, rows)
		}
	}
	// The evidence names the engine, its nodes and the snapshot read.
	if e := tri.Run.Engine; e == nil || e.Name != "trino" || e.URI != trinotest.EngineURI() || len(e.Nodes) < 2 ||
		!slices.ContainsFunc(e.Nodes, func(n parityNode) bool { return n.Coordinator }) ||
		!slices.ContainsFunc(e.Nodes, func(n parityNode) bool { return !n.Coordinator && n.State == "active" }) {
		t.Errorf("run.engine: %+v", tri.Run.Engine)
	}
	sinkIn := tri.Inputs[1]
	if sinkIn.Kind != "trino" || sinkIn.Details["snapshot_id"] == nil || sinkIn.Details["pinned"] != true || sinkIn.Details["fingerprint"] == nil {
		t.Errorf("sink input: %+v", sinkIn)
	}
	if src := tri.Inputs[0]; src.Details["pinned"] != false || src.Details["fingerprint_after"] == nil {
		t.Errorf("source input (PostgreSQL: fingerprinted twice): %+v", src)
	}
	sql, err := os.ReadFile(filepath.Join(triOut, "queries", "missing_ids.sql"))
	if err != nil || !strings.Contains(string(sql), "as query ") || !strings.Contains(string(sql), "FOR VERSION AS OF "+fmt.Sprint(sinkIn.Details["snapshot_id"])) {
		t.Errorf("queries/missing_ids.sql does not give the query id and the snapshot read: %v\n%s", err, sql)
	}
	if code, stdout, stderr := runCLI(t, "verify", triOut); code != exitOK {
		t.Errorf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// explain reads inputs into the embedded engine: a Trino run's evidence
	// is refused, naming the engine, not read as files of an unknown kind.
	if code, stdout, stderr := runCLI(t, "explain", "--evidence", triOut, "--key", "E0001"); code != exitUsage || !strings.Contains(stderr, "is not explained yet") {
		t.Errorf("explain --evidence of a Trino run: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// runBothEngines runs the control of spec text common (its keys but the
// inputs) over PostgreSQL table pgSchema.pgTable as the source and the
// Iceberg table iceSchema.postings as the sink on both engines: embedded
// (postgres:// and iceberg+sql: over the cluster's JDBC catalog) and on
// Trino (trino: tables, --engine); each must exit 1 (exceptions found).
// It returns each run's evidence folder and summary.
func runBothEngines(t *testing.T, pgSchema, pgTable, iceSchema, common string) (embOut string, emb *parityRun, triOut string, tri *parityRun) {
	t.Helper()
	dir := t.TempDir()
	catalog, err := url.Parse(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	catalog.Path = "/trino_iceberg"
	catalog.RawQuery = "table=" + iceSchema + ".postings&catalog=iceberg"
	embedded := writeFile(t, filepath.Join(dir, "embedded.yaml"), fmt.Sprintf("source: %q\nsink: %q\n%s",
		pgtest.TableURL(pgSchema, pgTable), "iceberg+sql:"+catalog.String(), common))
	onTrino := writeFile(t, filepath.Join(dir, "trino.yaml"), fmt.Sprintf("source: trino:postgresql.%s.%s\nsink: trino:iceberg.%s.postings\nengine: %s\n%s",
		pgSchema, pgTable, iceSchema, trinotest.EngineURI(), common))
	run := func(spec string) (string, *parityRun) {
		out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(spec), ".yaml"))
		code, stdout, stderr := runCLI(t, "run", "--config", spec, "--out", out)
		if code != exitFailed {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", spec, code, exitFailed, stdout, stderr)
		}
		var sum parityRun
		data, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &sum); err != nil {
			t.Fatal(err)
		}
		return out, &sum
	}
	embOut, emb = run(embedded)
	triOut, tri = run(onTrino)
	return embOut, emb, triOut, tri
}

type parityRun struct {
	Status string `json:"status"`
	Run    struct {
		Engine *struct {
			Name  string       `json:"name"`
			URI   string       `json:"uri"`
			Nodes []parityNode `json:"nodes"`
		} `json:"engine"`
	} `json:"run"`
	Totals json.RawMessage `json:"totals"`
	Inputs []struct {
		Kind    string         `json:"kind"`
		Details map[string]any `json:"details"`
	} `json:"inputs"`
	Checks []parityCheck `json:"checks"`
}

type parityNode struct {
	Coordinator bool   `json:"coordinator"`
	State       string `json:"state"`
}

type parityCheck struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Exceptions int64  `json:"exceptions"`
	File       string `json:"exceptions_file"`
	SkipReason string `json:"skip_reason"`
	Columns    []struct {
		Name string `json:"name"`
		Role string `json:"role"`
	} `json:"columns"`
}

// withoutColumns reads an exceptions CSV and returns its header and rows,
// each joined by commas, without the columns named in drop, the rows sorted.
func withoutColumns(t *testing.T, path string, drop map[string]bool) []string {
	t.Helper()
	recs := readCSV(t, path)
	if len(recs) == 0 {
		return nil
	}
	var keep []int
	for i, h := range recs[0] {
		if !drop[h] {
			keep = append(keep, i)
		}
	}
	var out []string
	for _, r := range recs {
		var f []string
		for _, i := range keep {
			f = append(f, r[i])
		}
		out = append(out, strings.Join(f, ","))
	}
	slices.Sort(out[1:])
	return out
}

// TestTrinoRefused: what has no exact form on Trino exits 2 naming it,
// before any check runs and with no evidence folder: a spec key (here
// normalize: and tolerance:, refused before the cluster is asked), an input
// that is not a Trino table, a floating-point measure, a compared timestamp
// column.
func TestTrinoRefused(t *testing.T) {
	dir := t.TempDir()
	refused := func(args []string, want ...string) {
		t.Helper()
		out := filepath.Join(dir, "ev")
		code, stdout, stderr := runCLI(t, append([]string{"run", "--out", out, "--id", "id"}, args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s\n%s", args, code, exitUsage, stdout, stderr)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr does not say %q:\n%s", args, w, stderr)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: an evidence folder was written", args)
		}
	}
	engine := "trino://reconcile@127.0.0.1:1"
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), "normalize: {name: [trim]}\ntolerance: {amount: 0.01}\n")
	refused([]string{"--config", spec, "--engine", engine, "--source", "trino:a.b.c", "--sink", "trino:a.b.d"}, "normalize:", "tolerance:", "embedded engine")
	refused([]string{"--engine", engine, "--source", "source.csv", "--sink", "trino:a.b.d"}, "source.csv", "is not a Trino table")
	refused([]string{"--engine", "http://reconcile@127.0.0.1:1", "--source", "trino:a.b.c", "--sink", "trino:a.b.d"}, "want trino://user@host:port")
	refused([]string{"--engine", "trino://reconcile@127.0.0.1", "--source", "trino:a.b.c", "--sink", "trino:a.b.d"}, "give the coordinator's port")
	refused([]string{"--source", "trino:a.b.c", "--sink", "sink.csv"}, "the source trino:a.b.c is a Trino table or query", "--engine")

	trinotest.Connect(t)
	schema, db := trinotest.Schema(t, "iceberg")
	trinotest.Exec(t, db, "CREATE TABLE iceberg."+schema+".a AS SELECT 'x' AS id, DOUBLE '1.5' AS amount, TIMESTAMP '2026-11-30 10:00:00' AS at")
	trinotest.Exec(t, db, "CREATE TABLE iceberg."+schema+".b AS SELECT 'x' AS id, DOUBLE '1.5' AS amount, TIMESTAMP '2026-11-30 10:00:00' AS at")
	in := []string{"--engine", trinotest.EngineURI(), "--source", "trino:iceberg." + schema + ".a", "--sink", "trino:iceberg." + schema + ".b"}
	refused(append(in, "--measure", "amount"), "measure amount is DOUBLE (binary floating point)")
	refused(append(in, "--ignore", "amount"), "compared column at is TIMESTAMP", "ignore: [at]")
}
