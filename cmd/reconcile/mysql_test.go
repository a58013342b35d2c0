package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/mysqltest"
)

// The MySQL end-to-end runs that are "run this spec, expect these
// exceptions" are case folders of testdata/endtoend (mysql-*, see
// TestEndToEnd). What stays here is what a case folder cannot express: two
// databases of the test's own on one server (a case has one), and a
// secret that must appear in no output at all (the want/ files compare
// only some outputs) under a user of the test's own.

// myTableURL is the URI of database.table on the test server.
func myTableURL(t *testing.T, database, table string) string {
	return mysqltest.TableURL(t, database, table)
}

// Both inputs on one server (source in one database, sink in another)
// read one snapshot, and say so in summary.json. The sink's long form
// declares a time_zone for its zone-less DATETIME column, which loads as
// written.
func TestMySQLBothInputsShareSnapshot(t *testing.T) {
	srcDB, srcConn := mysqltest.Database(t)
	sinkDB, sinkConn := mysqltest.Database(t)
	mysqltest.Exec(t, srcConn, `CREATE TABLE entries (entry_id VARCHAR(16), amount DECIMAL(18,2));
INSERT INTO entries VALUES ('E1', 1.00), ('E2', 2.50)`)
	mysqltest.Exec(t, sinkConn, `CREATE TABLE postings (entry_id VARCHAR(16), amount DECIMAL(18,2), posted_at DATETIME(3));
INSERT INTO postings VALUES ('E1', 1.00, '2026-11-27 08:00:31.250'), ('E2', 2.50, '2026-11-27 08:00:32.000')`)
	dir := t.TempDir()
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), fmt.Sprintf(`source: %q
sink:
  uri: %q
  table: postings
  time_zone: Asia/Shanghai
id: [entry_id]
measures: [amount]
out: ev
`, myTableURL(t, srcDB, "entries"), mysqltest.DatabaseURL(t, sinkDB)))
	code, stdout, stderr := runCLI(t, "run", "--config", spec, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	s := readSummary(t, filepath.Join(dir, "ev"))
	for _, in := range s.Inputs {
		if in.Kind != "mysql" || in.Details["shared_snapshot"] != true {
			t.Errorf("%s: kind %s, shared_snapshot %v (%v)", in.Location, in.Kind, in.Details["shared_snapshot"], in.Details["shared_snapshot_reason"])
		}
	}
	if a, b := s.Inputs[0].Details["transaction_started_at"], s.Inputs[1].Details["transaction_started_at"]; a != b || a == nil {
		t.Errorf("transaction_started_at %v and %v: want one snapshot", a, b)
	}
	if s.Inputs[1].Details["database"] != sinkDB {
		t.Errorf("sink database %v, want %s", s.Inputs[1].Details["database"], sinkDB)
	}
	cols := fmt.Sprint(s.Inputs[1].Details["columns"])
	if !strings.Contains(cols, "mysql_type:datetime(3) name:posted_at") || !strings.Contains(cols, "arrow_type:timestamp[us] ") {
		t.Errorf("posted_at not read as a zone-less timestamp: %s", cols)
	}
}

// A password in the URI or in MYSQL_PWD appears in no output: not in
// stdout, stderr, or any file of the evidence folder, whether the run
// succeeds or fails.
func TestMySQLPasswordNeverLeaks(t *testing.T) {
	const pw = "Pa55-my-leak-canary-7"
	name, conn := mysqltest.Database(t)
	user := name + "_r"
	table := name + ".sink"
	if code, out, errs := runCLI(t, "sample", "load-mysql", "--url", mysqltest.URL(), "--table", table,
		"--csv", filepath.Join("..", "..", "samples", "ledger", "sink-at-least-once.csv")); code != exitOK {
		t.Fatalf("load-mysql: exit %d\n%s%s", code, out, errs)
	}
	mysqltest.Exec(t, conn, fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'; GRANT SELECT ON `%s`.* TO '%s'@'%%'", user, pw, name, user))
	t.Cleanup(func() { conn.Exec(fmt.Sprintf("DROP USER IF EXISTS '%s'@'%%'", user)) })
	addr := mysqltest.Config(t).Addr
	withPW := fmt.Sprintf("mysql://%s:%s@%s/%s", user, pw, addr, name)
	noPW := fmt.Sprintf("mysql://%s@%s/%s", user, addr, name)
	spec := filepath.Join("..", "..", "samples", "ledger", "at-least-once.yaml")
	check := func(t *testing.T, what string, code, want exitCode, stdout, stderr, out string) {
		t.Helper()
		if code != want {
			t.Errorf("%s: exit %d, want %d\n%s", what, code, want, stderr)
		}
		for stream, s := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if strings.Contains(s, pw) {
				t.Errorf("%s: %s holds the password:\n%s", what, stream, s)
			}
		}
		files := 0
		filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			files++
			data, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
			} else if strings.Contains(string(data), pw) {
				t.Errorf("%s: %s holds the password", what, path)
			}
			return nil
		})
		if want != exitRuntime && files == 0 {
			t.Errorf("%s: no evidence files to check in %s", what, out)
		}
	}
	t.Run("uri", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "ev")
		code, stdout, stderr := runCLI(t, "run", "--config", spec, "--sink", withPW+"?table=sink", "--out", out)
		check(t, "run", code, exitFailed, stdout, stderr, out)
		if s := readSummary(t, out); !strings.Contains(s.Inputs[1].Location, user+":xxxxx@") {
			t.Errorf("sink location %q: want the password masked", s.Inputs[1].Location)
		}
		code, stdout, stderr = runCLI(t, "run", "--config", spec, "--sink", withPW+"?table=missing", "--out", filepath.Join(t.TempDir(), "ev"))
		check(t, "missing table", code, exitRuntime, stdout, stderr, "")
		code, stdout, stderr = runCLI(t, "run", "--config", spec, "--sink", fmt.Sprintf("mysql://%s:%s@127.0.0.1:1/%s?table=sink&timeout=2s", user, pw, name), "--out", filepath.Join(t.TempDir(), "ev"))
		check(t, "refused connection", code, exitRuntime, stdout, stderr, "")
	})
	t.Run("MYSQL_PWD", func(t *testing.T) {
		t.Setenv("MYSQL_PWD", pw)
		out := filepath.Join(t.TempDir(), "ev")
		code, stdout, stderr := runCLI(t, "run", "--config", spec, "--sink", noPW+"?table=sink", "--out", out)
		check(t, "run", code, exitFailed, stdout, stderr, out)
		code, stdout, stderr = runCLI(t, "run", "--config", spec, "--sink", noPW+"?table=missing", "--out", filepath.Join(t.TempDir(), "ev"))
		check(t, "missing table", code, exitRuntime, stdout, stderr, "")
	})
}
