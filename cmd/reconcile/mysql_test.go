package main

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/mysqltest"
)

// myTableURL is the URI of database.table on the test server.
func myTableURL(t *testing.T, database, table string) string {
	return mysqltest.TableURL(t, database, table)
}

// The ledger sample's MySQL variant, the seed scenario of a replayed
// plain-INSERT sink: `sample load-mysql` puts each sink into a table, and
// reconciling the CSV source against the table gives the findings of the
// all-file run, exit code included (130 replayed entries found twice).
func TestMySQLLedgerSample(t *testing.T) {
	name, _ := mysqltest.Database(t)
	for _, v := range []struct{ spec, csv string }{
		{"at-least-once.yaml", "sink-at-least-once.csv"},
		{"exactly-once.yaml", "sink-exactly-once.csv"},
	} {
		t.Run(v.spec, func(t *testing.T) {
			table := strings.TrimSuffix(strings.ReplaceAll(v.csv, "-", "_"), ".csv")
			csvPath := filepath.Join("..", "..", "samples", "ledger", v.csv)
			code, stdout, stderr := runCLI(t, "sample", "load-mysql", "--url", mysqltest.URL(), "--table", name+"."+table, "--csv", csvPath)
			if code != exitOK || !strings.Contains(stdout, "loaded 3") {
				t.Fatalf("load-mysql: exit %d\n%s%s", code, stdout, stderr)
			}
			spec := filepath.Join("..", "..", "samples", "ledger", v.spec)
			fileOut, myOut := filepath.Join(t.TempDir(), "file"), filepath.Join(t.TempDir(), "mysql")
			fileCode, _, fileErr := runCLI(t, "run", "--config", spec, "--out", fileOut, "--format", "json")
			myCode, _, myErr := runCLI(t, "run", "--config", spec, "--sink", myTableURL(t, name, table), "--out", myOut, "--format", "json")
			if fileCode != myCode || (myCode != exitOK && myCode != exitFailed) {
				t.Fatalf("exit codes: file %d, mysql %d\nfile stderr:\n%s\nmysql stderr:\n%s", fileCode, myCode, fileErr, myErr)
			}
			want, got := readSummary(t, fileOut), readSummary(t, myOut)
			if want.findings() != got.findings() {
				t.Errorf("findings differ\nfile:\n%s\nmysql:\n%s", want.findings(), got.findings())
			}
			if sink := got.Inputs[1]; sink.Kind != "mysql" || sink.Details["server_version"] == nil || sink.Details["sql"] == nil || sink.Details["transaction_started_at"] == nil {
				t.Errorf("sink input %+v lacks the mysql evidence", sink)
			}
			if v.csv == "sink-at-least-once.csv" {
				for _, c := range got.Checks {
					if (c.ID == "duplicate_ids" || c.ID == "key_checkpoint_conflicts") && c.Exceptions != 130 {
						t.Errorf("%s: %d exceptions, want 130 (the replayed entries)", c.ID, c.Exceptions)
					}
				}
			}
		})
	}
}

// Every mapped type's edge values, as a MariaDB table and as CSV text,
// reconcile with no mismatch and exactly equal sums.
func TestMySQLTypesReconcile(t *testing.T) {
	name, conn := mysqltest.Database(t)
	script, err := os.ReadFile(filepath.Join("..", "..", "sources", "testdata", "mysql", "types.sql"))
	if err != nil {
		t.Fatal(err)
	}
	mysqltest.Exec(t, conn, "SET time_zone = '+00:00'; "+string(script))
	out := filepath.Join(t.TempDir(), "ev")
	measures := "ti,t1,tu,si,su,mi,mu,i4,iu,bi,bu,d182,du,d3810,d654,d55,y,b64"
	code, stdout, stderr := runCLI(t, "run",
		"--source", filepath.Join("..", "..", "sources", "testdata", "mysql", "types.csv"),
		"--sink", myTableURL(t, name, "types"),
		// The CSV spells the binary columns in hex; text and BLOB are not
		// comparable by type, so they are left out (every other column is
		// compared by type).
		"--id", "id", "--measure", measures, "--ignore", "bn,vb,bl", "--out", out, "--format", "json")
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
		"ti": "-1", "t1": "3", "tu": "262", "si": "-1", "su": "65536", "mi": "-1", "mu": "16777216", "i4": "-1",
		"iu": "4294967296", "bi": "-1", "bu": "27670116110564327423", "d182": "0.00", "du": "1000000000000000000.00",
		"d3810": "0.0000000001", "d654": "0.0001", "d55": "0.00001", "y": "4056", "b64": "18446744073709551620",
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

// A sink read with a query in the spec's long form (a YAML block) and in
// the URI.
func TestMySQLQuerySink(t *testing.T) {
	name, _ := mysqltest.Database(t)
	table := name + ".sink"
	if code, out, errs := runCLI(t, "sample", "load-mysql", "--url", mysqltest.URL(), "--table", table,
		"--csv", filepath.Join("..", "..", "samples", "ledger", "sink-at-least-once.csv")); code != exitOK {
		t.Fatalf("load-mysql: exit %d\n%s%s", code, out, errs)
	}
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join("..", "..", "samples", "ledger", "source.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// Keeping each entry's first checkpoint filters out the replayed
	// duplicates: the query's result reconciles cleanly.
	query := fmt.Sprintf(`SELECT entry_id, account, amount, checkpoint_id FROM (
  SELECT s.*, ROW_NUMBER() OVER (PARTITION BY entry_id ORDER BY checkpoint_id) AS n FROM %s AS s
) AS q WHERE n = 1`, table)
	spec := writeFile(t, filepath.Join(dir, "spec.yaml"), fmt.Sprintf(`source: %s
sink:
  uri: %s
  query: |
%s
id: [entry_id]
measures: [amount]
group_by: [account]
out: ev
`, src, mysqltest.URL(), indent(query, "    ")))
	code, stdout, stderr := runCLI(t, "run", "--config", spec)
	if code != exitOK {
		t.Fatalf("long-form query: exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	s := readSummary(t, filepath.Join(dir, "ev"))
	if got := s.Inputs[1].Details["sql"]; got != strings.TrimSpace(query) {
		t.Errorf("sql in evidence %q, want %q", got, query)
	}
	uri := mysqltest.URL()
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	uri += sep + "query=" + url.QueryEscape("SELECT entry_id, account, amount, checkpoint_id FROM "+table)
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

// Exit codes: a missing table and a zero date cannot be read (3); a column
// the table lacks, a type that cannot be mapped and a URI without a table
// are usage errors (2). No evidence folder is left.
func TestMySQLExitCodes(t *testing.T) {
	name, conn := mysqltest.Database(t)
	mysqltest.Exec(t, conn, `SET SESSION sql_mode = '';
CREATE TABLE sink (entry_id VARCHAR(16), amount DECIMAL(18,2)); INSERT INTO sink VALUES ('E0000001', 915.85);
CREATE TABLE odd (entry_id VARCHAR(16), place POINT);
CREATE TABLE zero (entry_id VARCHAR(16), posted DATE); INSERT INTO zero VALUES ('E0000001', '0000-00-00')`)
	src := filepath.Join("..", "..", "samples", "ledger", "source.csv")
	tests := []struct {
		name, sink, id string
		want           exitCode
		msg            string
	}{
		{"missing table", myTableURL(t, name, "nope"), "entry_id", exitRuntime, "table nope not found in database " + name + " (as user "},
		{"bad column", myTableURL(t, name, "sink"), "entry_no", exitUsage, `"entry_no"`},
		{"unmapped type", myTableURL(t, name, "odd"), "entry_id", exitUsage, "column place has type point"},
		{"zero date", myTableURL(t, name, "zero"), "entry_id", exitRuntime, `zero:1: column posted (date): value "0000-00-00"`},
		{"no table", mysqltest.DatabaseURL(t, name), "entry_id", exitUsage, "names no table"},
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
