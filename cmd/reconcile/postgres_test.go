package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// pgSummary is the part of summary.json the PostgreSQL tests compare.
type pgSummary struct {
	Status string   `json:"status"`
	Notes  []string `json:"notes"`
	Checks []struct {
		ID         string `json:"id"`
		Status     string `json:"status"`
		Exceptions int    `json:"exceptions"`
	} `json:"checks"`
	Inputs []struct {
		Kind     string         `json:"kind"`
		Location string         `json:"location"`
		Rows     int            `json:"rows"`
		Details  map[string]any `json:"details"`
	} `json:"inputs"`
	Totals struct {
		SourceRows int `json:"source_rows"`
		SinkRows   int `json:"sink_rows"`
		Measures   []struct {
			Name       string `json:"name"`
			SourceSum  string `json:"source_sum"`
			SinkSum    string `json:"sink_sum"`
			Difference string `json:"difference"`
		} `json:"measures"`
	} `json:"totals"`
}

func readSummary(t *testing.T, dir string) *pgSummary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s pgSummary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// findings renders the verdict of a run: status, each check's status and
// exceptions, row counts and measure totals.
func (s *pgSummary) findings() string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %s; rows %d/%d\n", s.Status, s.Totals.SourceRows, s.Totals.SinkRows)
	for _, c := range s.Checks {
		fmt.Fprintf(&b, "%s %s %d\n", c.ID, c.Status, c.Exceptions)
	}
	for _, m := range s.Totals.Measures {
		fmt.Fprintf(&b, "sum %s %s %s %s\n", m.Name, m.SourceSum, m.SinkSum, m.Difference)
	}
	return b.String()
}

// The ledger sample's PostgreSQL variant: `sample load-postgres` puts each
// sink into a table, and reconciling the CSV source against the table gives
// the findings of the all-file run, exit code included.
func TestPostgresLedgerSample(t *testing.T) {
	schema, _ := pgtest.Schema(t)
	for _, v := range []struct{ spec, csv string }{
		{"at-least-once.yaml", "sink-at-least-once.csv"},
		{"exactly-once.yaml", "sink-exactly-once.csv"},
	} {
		t.Run(v.spec, func(t *testing.T) {
			table := schema + "." + strings.TrimSuffix(strings.ReplaceAll(v.csv, "-", "_"), ".csv")
			csvPath := filepath.Join("..", "..", "samples", "ledger", v.csv)
			code, stdout, stderr := runCLI(t, "sample", "load-postgres", "--url", pgtest.URL(), "--table", table, "--csv", csvPath)
			if code != exitOK || !strings.Contains(stdout, "rows of") {
				t.Fatalf("load-postgres: exit %d\n%s%s", code, stdout, stderr)
			}
			spec := filepath.Join("..", "..", "samples", "ledger", v.spec)
			fileOut, pgOut := filepath.Join(t.TempDir(), "file"), filepath.Join(t.TempDir(), "pg")
			fileCode, _, fileErr := runCLI(t, "run", "--config", spec, "--out", fileOut, "--format", "json")
			pgCode, _, pgErr := runCLI(t, "run", "--config", spec, "--sink", pgtest.TableURL(schema, strings.TrimPrefix(table, schema+".")), "--out", pgOut, "--format", "json")
			if fileCode != pgCode || (pgCode != exitOK && pgCode != exitFailed) {
				t.Fatalf("exit codes: file %d, postgres %d\nfile stderr:\n%s\npostgres stderr:\n%s", fileCode, pgCode, fileErr, pgErr)
			}
			want, got := readSummary(t, fileOut), readSummary(t, pgOut)
			if want.findings() != got.findings() {
				t.Errorf("findings differ\nfile:\n%s\npostgres:\n%s", want.findings(), got.findings())
			}
			if sink := got.Inputs[1]; sink.Kind != "postgres" || sink.Details["snapshot"] == nil || sink.Details["sql"] == nil {
				t.Errorf("sink input %+v lacks the postgres evidence", sink)
			}
		})
	}
}

// Every mapped type's edge values, as a PostgreSQL table and as CSV text,
// reconcile with no mismatch and exactly equal sums: each CSV column is
// compared with its PostgreSQL counterpart by type (numbers by value, text
// byte for byte, booleans, dates, timestamps as instants, floats at their
// precision, uuid and JSON as text). bytea is left out: a CSV holds bytes
// in no one agreed encoding (here hex), so BLOB against text is refused.
func TestPostgresTypesReconcile(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	sql, err := os.ReadFile(filepath.Join("..", "..", "sources", "testdata", "postgres", "types.sql"))
	if err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, conn, "SET search_path TO "+pgx.Identifier{schema}.Sanitize())
	pgtest.Exec(t, conn, string(sql))
	out := filepath.Join(t.TempDir(), "ev")
	code, stdout, stderr := runCLI(t, "run",
		"--source", filepath.Join("..", "..", "sources", "testdata", "postgres", "types.csv"),
		"--sink", pgtest.TableURL(schema, "types"),
		"--id", "id", "--measure", "i2,i4,i8,n182,n3810,nu,nneg,nsmall", "--ignore", "by", "--out", out, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	s := readSummary(t, out)
	for _, c := range s.Checks {
		if c.Exceptions != 0 {
			t.Errorf("check %s: %d exceptions", c.ID, c.Exceptions)
		}
	}
	want := map[string]string{
		"i2": "-1", "i4": "-1", "i8": "-1", "n182": "0.00", "n3810": "0.0000000001",
		"nu": "1234567890123456789012345677.6234567889", "nneg": "100", "nsmall": "0.00001",
	}
	if len(s.Totals.Measures) != len(want) {
		t.Fatalf("measures %+v", s.Totals.Measures)
	}
	for _, m := range s.Totals.Measures {
		if m.SourceSum != want[m.Name] || m.SinkSum != want[m.Name] || strings.Trim(m.Difference, "0.") != "" {
			t.Errorf("sum of %s: source %s, sink %s, difference %s; want %s both", m.Name, m.SourceSum, m.SinkSum, m.Difference, want[m.Name])
		}
	}
}

// A sink read with a query written in the spec's long form (a YAML block),
// and a query parameter in the --sink URI.
func TestPostgresQuerySink(t *testing.T) {
	schema, _ := pgtest.Schema(t)
	table := schema + ".sink"
	if code, out, errs := runCLI(t, "sample", "load-postgres", "--url", pgtest.URL(), "--table", table,
		"--csv", filepath.Join("..", "..", "samples", "ledger", "sink-at-least-once.csv")); code != exitOK {
		t.Fatalf("load-postgres: exit %d\n%s%s", code, out, errs)
	}
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "..", "samples", "ledger", "source.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// The replayed duplicates are filtered out by keeping each entry's first
	// checkpoint: the query's result reconciles cleanly.
	query := fmt.Sprintf(`SELECT DISTINCT ON (entry_id) entry_id, account, amount, checkpoint_id
FROM %s
ORDER BY entry_id, checkpoint_id`, table)
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), fmt.Sprintf(`source: %s
sink:
  uri: %s
  query: |
%s
id: [entry_id]
measures: [amount]
group_by: [account]
out: ev
`, src, pgtest.URL(), indent(query, "    ")))
	code, stdout, stderr := runCLI(t, "run", "--config", spec)
	if code != exitOK {
		t.Fatalf("long-form query: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	s := readSummary(t, filepath.Join(dir, "ev"))
	if got := s.Inputs[1].Details["sql"]; got != strings.TrimSpace(query) {
		t.Errorf("sql in evidence %q, want %q", got, query)
	}
	// The same, with the query as a URI parameter, without the filter: the
	// duplicates are found.
	uri := pgtest.URL()
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	uri += sep + "query=" + strings.ReplaceAll("SELECT entry_id, account, amount, checkpoint_id FROM "+table, " ", "+")
	out := filepath.Join(dir, "ev2")
	code, stdout, stderr = runCLI(t, "run", "--source", src, "--sink", uri, "--id", "entry_id", "--measure", "amount", "--out", out, "--format", "json")
	if code != exitFailed {
		t.Fatalf("URI query: exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, c := range readSummary(t, out).Checks {
		if c.ID == "duplicate_ids" && c.Exceptions != 130 {
			t.Errorf("duplicate_ids: %d exceptions, want 130", c.Exceptions)
		}
	}
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// Exit codes: a missing table cannot be read (3); a column the table lacks,
// a type that cannot be mapped and a URI without a table are usage errors
// (2). No evidence folder is left.
func TestPostgresExitCodes(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.sink (entry_id text, amount numeric(18,2)); INSERT INTO %[1]s.sink VALUES ('E0000001', 915.85);
CREATE TABLE %[1]s.odd (entry_id text, wait interval)`, schema))
	src := filepath.Join("..", "..", "samples", "ledger", "source.csv")
	tests := []struct {
		name, sink, id string
		want           exitCode
		msg            string
	}{
		{"missing table", pgtest.TableURL(schema, "nope"), "entry_id", exitRuntime, schema + ".nope not found"},
		{"bad column", pgtest.TableURL(schema, "sink"), "entry_no", exitUsage, `"entry_no"`},
		{"unmapped type", pgtest.TableURL(schema, "odd"), "entry_id", exitUsage, "column wait has type interval"},
		{"no table", pgtest.URL(), "entry_id", exitUsage, "names no table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ev")
			code, _, stderr := runCLI(t, "run", "--source", src, "--sink", tt.sink, "--id", tt.id, "--out", out)
			if code != tt.want {
				t.Errorf("exit %d, want %d\n%s", code, tt.want, stderr)
			}
			if !strings.Contains(stderr, tt.msg) {
				t.Errorf("stderr %q does not say %q", stderr, tt.msg)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("an evidence folder was left by a failed run")
			}
		})
	}
}

// A password in the URI or in PGPASSWORD appears in no output: not in
// stdout, stderr, or any file of the evidence folder, whether the run
// succeeds or fails.
func TestPostgresPasswordNeverLeaks(t *testing.T) {
	const pw = "Pa55-leak-canary-9"
	schema, conn := pgtest.Schema(t)
	role := schema + "_r"
	pgtest.Exec(t, conn, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD '%s'", role, pw))
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	table := schema + ".sink"
	if code, out, errs := runCLI(t, "sample", "load-postgres", "--url", pgtest.URL(), "--table", table,
		"--csv", filepath.Join("..", "..", "samples", "ledger", "sink-at-least-once.csv")); code != exitOK {
		t.Fatalf("load-postgres: exit %d\n%s%s", code, out, errs)
	}
	pgtest.Exec(t, conn, fmt.Sprintf("GRANT USAGE ON SCHEMA %s TO %s; GRANT SELECT ON %s TO %s", schema, role, table, role))
	cfg, err := pgx.ParseConfig(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	withPW := fmt.Sprintf("postgres://%s:%s@%s:%d/%s", role, pw, cfg.Host, cfg.Port, cfg.Database)
	noPW := fmt.Sprintf("postgres://%s@%s:%d/%s", role, cfg.Host, cfg.Port, cfg.Database)
	spec := filepath.Join("..", "..", "samples", "ledger", "at-least-once.yaml")
	check := func(t *testing.T, name string, code, want exitCode, stdout, stderr, out string) {
		t.Helper()
		if code != want {
			t.Errorf("%s: exit %d, want %d\n%s", name, code, want, stderr)
		}
		for what, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if strings.Contains(s, pw) {
				t.Errorf("%s: %s holds the password:\n%s", name, what, s)
			}
		}
		filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
			} else if strings.Contains(string(data), pw) {
				t.Errorf("%s: %s holds the password", name, path)
			}
			return nil
		})
	}
	t.Run("uri", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "ev")
		code, stdout, stderr := runCLI(t, "run", "--config", spec, "--sink", withPW+"?table="+table, "--out", out)
		check(t, "run", code, exitFailed, stdout, stderr, out)
		if _, err := os.Stat(filepath.Join(out, "report.md")); err != nil {
			t.Errorf("no report.md to check: %v", err)
		}
		if s := readSummary(t, out); !strings.Contains(s.Inputs[1].Location, role+":xxxxx@") {
			t.Errorf("sink location %q: want the password masked", s.Inputs[1].Location)
		}
		code, stdout, stderr = runCLI(t, "run", "--config", spec, "--sink", withPW+"?table="+schema+".missing", "--out", filepath.Join(t.TempDir(), "ev"))
		check(t, "missing table", code, exitRuntime, stdout, stderr, "")
		code, stdout, stderr = runCLI(t, "run", "--config", spec, "--sink", strings.Replace(withPW, fmt.Sprint(cfg.Port), "1", 1)+"?table="+table+"&connect_timeout=2", "--out", filepath.Join(t.TempDir(), "ev"))
		check(t, "refused connection", code, exitRuntime, stdout, stderr, "")
	})
	t.Run("PGPASSWORD", func(t *testing.T) {
		t.Setenv("PGPASSWORD", pw)
		out := filepath.Join(t.TempDir(), "ev")
		code, stdout, stderr := runCLI(t, "run", "--config", spec, "--sink", noPW+"?table="+table, "--out", out)
		check(t, "run", code, exitFailed, stdout, stderr, out)
	})
}

// A zone-less timestamp column compared with a zoned one is flagged in the
// evidence.
func TestPostgresZoneLessTimestampFlagged(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.src (entry_id text, amount numeric(10,2), posted_at timestamp);
CREATE TABLE %[1]s.snk (entry_id text, amount numeric(10,2), posted_at timestamptz);
INSERT INTO %[1]s.src VALUES ('E1', 1.00, '2026-11-27 00:00:31');
INSERT INTO %[1]s.snk VALUES ('E1', 1.00, '2026-11-27 00:00:31+00')`, schema))
	out := filepath.Join(t.TempDir(), "ev")
	code, stdout, stderr := runCLI(t, "run", "--source", pgtest.TableURL(schema, "src"), "--sink", pgtest.TableURL(schema, "snk"),
		"--id", "entry_id", "--measure", "amount", "--out", out, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(s.Notes, "\n"), "posted_at is a zone-less TIMESTAMP in the source") {
		t.Errorf("notes %q do not flag posted_at", s.Notes)
	}
}

// The libpq key=value form (postgres:host=… dbname=… table=…) works next to
// --config, as a flag and in the spec: a flag input is kept as written and
// only a file kind's relative path is read against the working directory
// (before, the flag value was turned into a path below the working
// directory and the run exited 3 with `unrecognized configuration
// parameter "/…/postgres:host"`).
func TestPostgresKeywordFormWithConfig(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.snk (entry_id text, amount numeric(10,2));
INSERT INTO %[1]s.snk VALUES ('E1', 1.50), ('E2', 2.25)`, schema))
	cfg, err := pgx.ParseConfig(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	keyword := fmt.Sprintf("postgres:host=%s port=%d user=%s dbname=%s table=%s.snk", cfg.Host, cfg.Port, cfg.User, cfg.Database, schema)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "spec", "source.csv"), "entry_id,amount\nE1,1.50\nE2,2.25\n")
	writeFile(t, filepath.Join(dir, "spec", "other.csv"), "entry_id,amount\nE9,9.00\n")
	flagSpec := writeFile(t, filepath.Join(dir, "spec", "flag.yaml"), "source: source.csv\nsink: other.csv\nid: [entry_id]\nmeasures: [amount]\n")
	inSpec := writeFile(t, filepath.Join(dir, "spec", "inspec.yaml"), fmt.Sprintf("source: source.csv\nsink: '%s'\nid: [entry_id]\nmeasures: [amount]\n", keyword))
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"flag", []string{"--config", flagSpec, "--sink", keyword}},
		{"spec", []string{"--config", inSpec}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ev")
			code, stdout, stderr := runCLI(t, append(append([]string{"run"}, tt.args...), "--out", out, "--format", "json")...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
			}
			s := readSummary(t, out)
			if s.Inputs[1].Kind != "postgres" || s.Totals.SinkRows != 2 || s.Totals.Measures[0].SinkSum != "3.75" {
				t.Errorf("sink %+v, totals %+v: want the 2 PostgreSQL rows summing to 3.75", s.Inputs[1], s.Totals)
			}
			// A file and a table are never read as of one instant: the note
			// names the table's snapshot and the time between the reads.
			note := strings.Join(s.Notes, "\n")
			if want := fmt.Sprintf("the sink in postgres snapshot %v", s.Inputs[1].Details["snapshot"]); !strings.Contains(note, "not read as of one instant") || !strings.Contains(note, want) || !strings.Contains(note, "s after the source's") {
				t.Errorf("notes %q: want the two reads and %q", s.Notes, want)
			}
		})
	}
}

// Issue case 5: while a writer commits one row to both the source and the
// sink table per transaction, reconcile reads both in one snapshot (the
// source's, exported and imported by the sink), so the run passes: no
// unexpected_ids, no missing_ids, shared_snapshot true in both inputs. The
// source's query sleeps 300 ms inside its snapshot, and the writer commits
// every few milliseconds, so two snapshots of their own would differ by
// dozens of rows.
func TestPostgresSharedSnapshotUnderConcurrentWriter(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.dialects_db_src (id bigint, amount numeric(10,2));
CREATE TABLE %[1]s.dialects_db_snk (id bigint, amount numeric(10,2));
INSERT INTO %[1]s.dialects_db_src SELECT g, g * 0.01 FROM generate_series(1, 1000) g;
INSERT INTO %[1]s.dialects_db_snk SELECT g, g * 0.01 FROM generate_series(1, 1000) g`, schema))
	writer := pgtest.Connect(t)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		n := 0
		defer func() { done <- n }()
		for id := 1001; id <= 200000 && ctx.Err() == nil; id++ { // bounded
			tx, err := writer.Begin(ctx)
			if err != nil {
				return
			}
			for _, tb := range []string{"dialects_db_src", "dialects_db_snk"} {
				if _, err := tx.Exec(ctx, fmt.Sprintf("INSERT INTO %s.%s VALUES ($1, $2)", schema, tb), id, fmt.Sprintf("%d.01", id)); err != nil {
					tx.Rollback(context.Background())
					return
				}
			}
			if err := tx.Commit(ctx); err != nil {
				return
			}
			n++
			time.Sleep(2 * time.Millisecond)
		}
	}()
	time.Sleep(50 * time.Millisecond) // the writer is running when the reads begin
	dir := t.TempDir()
	query := fmt.Sprintf("SELECT s.id, s.amount FROM %s.dialects_db_src AS s, (SELECT pg_sleep(0.3)) AS pause", schema)
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), fmt.Sprintf(`source: {uri: %q, query: %q}
sink: %q
id: [id]
measures: [amount]
out: ev
`, pgtest.URL(), query, pgtest.TableURL(schema, "dialects_db_snk")))
	before := pgCount(t, conn, schema+".dialects_db_snk")
	code, stdout, stderr := runCLI(t, "run", "--config", spec, "--format", "json")
	after := pgCount(t, conn, schema+".dialects_db_snk")
	stop()
	committed := <-done
	if after-before < 20 {
		t.Fatalf("the writer committed only %d transactions during the run (%d in all): the test proves nothing", after-before, committed)
	}
	s := readSummary(t, filepath.Join(dir, "ev"))
	if code != exitOK {
		t.Errorf("exit %d, want 0 (one snapshot: consistent inputs)\n%s%s\n%s", code, stdout, stderr, s.findings())
	}
	for _, c := range s.Checks {
		if (c.ID == "unexpected_ids" || c.ID == "missing_ids") && c.Exceptions != 0 {
			t.Errorf("%s: %d exceptions, want 0", c.ID, c.Exceptions)
		}
	}
	src, snk := s.Inputs[0].Details, s.Inputs[1].Details
	for _, d := range []map[string]any{src, snk} {
		if d["shared_snapshot"] != true || d["exported_snapshot"] == nil || d["exported_snapshot"] != src["exported_snapshot"] {
			t.Errorf("details %v: want shared_snapshot true and the source's exported_snapshot", d)
		}
	}
	if snk["snapshot"] != src["snapshot"] || snk["snapshot_opened_by"] != "source" || src["snapshot_shared_with"] != "sink" {
		t.Errorf("sink snapshot %v opened by %v, source snapshot %v shared with %v", snk["snapshot"], snk["snapshot_opened_by"], src["snapshot"], src["snapshot_shared_with"])
	}
	if strings.Contains(strings.Join(s.Notes, "\n"), "not read as of one instant") {
		t.Errorf("notes %q: a shared snapshot needs no note on two reads", s.Notes)
	}
}

// Two PostgreSQL inputs that are not on the same server by their
// connection strings (here one server spelled 127.0.0.1 and localhost) are
// read in two snapshots: the evidence says shared_snapshot false, and a
// note names both snapshots and the seconds between the reads.
func TestPostgresTwoServersNoted(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.dialects_db_t (id bigint, amount numeric(10,2));
INSERT INTO %[1]s.dialects_db_t VALUES (1, 1.00)`, schema))
	cfg, err := pgx.ParseConfig(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "127.0.0.1" {
		t.Skipf("the test spells the server 127.0.0.1 and localhost; RECONCILE_PG_URL names %s", cfg.Host)
	}
	other := strings.Replace(pgtest.TableURL(schema, "dialects_db_t"), "127.0.0.1", "localhost", 1)
	out := filepath.Join(t.TempDir(), "ev")
	code, stdout, stderr := runCLI(t, "run", "--source", pgtest.TableURL(schema, "dialects_db_t"), "--sink", other, "--id", "id", "--out", out, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	s := readSummary(t, out)
	src, snk := s.Inputs[0].Details, s.Inputs[1].Details
	if src["shared_snapshot"] != false || snk["shared_snapshot"] != false {
		t.Errorf("shared_snapshot %v, %v: want false for both", src["shared_snapshot"], snk["shared_snapshot"])
	}
	note := strings.Join(s.Notes, "\n")
	for _, want := range []string{fmt.Sprintf("the source in postgres snapshot %v", src["snapshot"]), fmt.Sprintf("the sink in postgres snapshot %v", snk["snapshot"]), "s after the source's"} {
		if !strings.Contains(note, want) {
			t.Errorf("notes %q do not say %q", s.Notes, want)
		}
	}
}

func pgCount(t *testing.T, conn *pgx.Conn, table string) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A rename: of a PostgreSQL sink onto a column it has or of a column it
// lacks, and a spec column the sink lacks once renamed, are spec errors
// (exit 2) found from the catalog before any row is read: the source, a
// CSV whose line 20002 is malformed, is never read (its error would say
// so), and no evidence folder is left. With the spec right, the same run
// reads the source and stops at that line (exit 3).
func TestPostgresRenameRefusedBeforeRead(t *testing.T) {
	schema, conn := pgtest.Schema(t)
	pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.pgschema_ledger (txn_id text, amt numeric(18,2));
INSERT INTO %[1]s.pgschema_ledger SELECT 'E' || lpad(g::text, 6, '0'), 1.00 FROM generate_series(1, 20001) AS g`, schema))
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("entry_id,amount\n")
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&csv, "E%06d,1.00\n", i)
	}
	csv.WriteString("E020001,1.00,surplus\n")
	writeFile(t, filepath.Join(dir, "source.csv"), csv.String())
	for _, tt := range []struct {
		name, rename, id string
		want             exitCode
		msg              []string
	}{
		{"right", "{txn_id: entry_id, amt: amount}", "entry_id", exitRuntime, []string{"source.csv:20002: 3 fields, the header has 2"}},
		{"misspelled rename", "{txn_idd: entry_id, amt: amount}", "entry_id", exitUsage,
			[]string{`sink.rename: column "txn_idd" is not in the sink, whose columns are: txn_id, amt`, "found before any row was read"}},
		{"onto an existing column", "{amt: txn_id}", "entry_id", exitUsage,
			[]string{"sink.rename: amt to txn_id: the sink already has a column txn_id", "found before any row was read"}},
		{"misspelled id", "{txn_id: entry_id, amt: amount}", "entry_idd", exitUsage,
			[]string{`column "entry_idd" (from id) not found in the sink; its columns are: entry_id, amount`, "found before any row was read"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spec := writeFile(t, filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".yaml"), fmt.Sprintf(`source: source.csv
sink:
  uri: %s
  table: %s.pgschema_ledger
  rename: %s
id: [%s]
measures: [amount]
out: ev
`, pgtest.URL(), schema, tt.rename, tt.id))
			code, stdout, stderr := runCLI(t, "run", "--config", spec)
			if code != tt.want {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.want, stdout, stderr)
			}
			for _, m := range tt.msg {
				if !strings.Contains(stderr, m) {
					t.Errorf("stderr %q does not say %q", stderr, m)
				}
			}
			if tt.want == exitUsage && strings.Contains(stderr, "20002") {
				t.Errorf("stderr %q: the source was read", stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, "ev")); err == nil {
				t.Error("an evidence folder was left by a failed run")
			}
		})
	}
}
