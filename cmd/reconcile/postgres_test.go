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

// The PostgreSQL end-to-end runs that are "run this spec, expect these
// exceptions" are case folders of testdata/endtoend (postgres-*, see
// TestEndToEnd). What stays here is what a case folder cannot express: a
// secret that must appear in no output at all (the want/ files compare
// only some outputs) under a login role of the test's own, a concurrent
// writer during the run, one server spelled two ways, and a source of
// 20,000 lines made by the test.

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
