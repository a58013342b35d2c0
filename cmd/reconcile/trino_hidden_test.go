package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/mysqltest"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/internal/trinotest"
)

// TestTrinoHiddenColumns: a column Trino's PostgreSQL or MySQL connector
// hides (a numeric without precision, MariaDB's inet6) or misreads (a
// bit(5) as a boolean, a time with time zone as a time) is refused (exit 2, naming the input, the column and
// the remedy) when the checks would read it — compared by default, or
// named — for a table and for a query reading the table; left out with
// ignore:, the run goes on and a note names it. Each pair of tables
// differs in the hidden column only, which the embedded engine finds: a
// Trino run that did not look would pass.
func TestTrinoHiddenColumns(t *testing.T) {
	trinotest.Connect(t)
	dir := t.TempDir()
	pgSchema, pg := pgtest.Schema(t)
	pgtest.Exec(t, pg, fmt.Sprintf(`
		CREATE TABLE %[1]s.src (id text, amount numeric(12,2), fee numeric);
		CREATE TABLE %[1]s.snk (id text, amount numeric(12,2), fee numeric);
		INSERT INTO %[1]s.src VALUES ('a', 1.50, 0.25), ('b', 2.00, 0.5);
		INSERT INTO %[1]s.snk VALUES ('a', 1.50, 0.25), ('b', 2.00, 0.75);
		CREATE TABLE %[1]s.tz (id text, amount numeric(12,2), at timetz);
		INSERT INTO %[1]s.tz VALUES ('a', 1.50, NULL);`, pgSchema))
	myDB, my := mysqltest.Database(t)
	mysqltest.Exec(t, my, "CREATE TABLE src (id varchar(8), amount decimal(12,2), flags bit(5), addr inet6)")
	mysqltest.Exec(t, my, "CREATE TABLE snk (id varchar(8), amount decimal(12,2), flags bit(5), addr inet6)")
	mysqltest.Exec(t, my, "INSERT INTO src VALUES ('a', 1.50, b'00101', '::1'), ('b', 2.00, b'00011', '::2')")
	mysqltest.Exec(t, my, "INSERT INTO snk VALUES ('a', 1.50, b'00101', '::1'), ('b', 2.00, b'00110', '::3')")

	run := func(args ...string) (exitCode, string, string) {
		t.Helper()
		out := filepath.Join(dir, fmt.Sprintf("ev%d", len(args)))
		os.RemoveAll(out)
		code, stdout, stderr := runCLI(t, append([]string{"run", "--out", out, "--id", "id", "--measure", "amount"}, args...)...)
		if code != exitUsage {
			if data, err := os.ReadFile(filepath.Join(out, "summary.json")); err == nil {
				stdout += string(data)
			}
		} else if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: refused, but an evidence folder was written", args)
		}
		return code, stdout, stderr
	}
	expect := func(args []string, code exitCode, want ...string) {
		t.Helper()
		got, stdout, stderr := run(args...)
		if got != code {
			t.Errorf("%v: exit %d, want %d\n%s\n%s", args, got, code, stdout, stderr)
			return
		}
		for _, w := range want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("%v: the output does not say %q:\n%s\n%s", args, w, stdout, stderr)
			}
		}
	}
	engine := trinotest.EngineURI()
	pgSrc, pgSnk := "trino:postgresql."+pgSchema+".src", "trino:postgresql."+pgSchema+".snk"
	myTable := func(table string) string { return "trino:mysql." + myDB + "." + table }

	// The embedded engine reads the hidden columns and finds them differ.
	expect([]string{"--source", pgtest.TableURL(pgSchema, "src"), "--sink", pgtest.TableURL(pgSchema, "snk")}, exitFailed, "value_mismatches")
	expect([]string{"--source", mysqltest.TableURL(t, myDB, "src"), "--sink", mysqltest.TableURL(t, myDB, "snk")}, exitFailed, "value_mismatches")

	// On Trino, a run comparing every column is refused.
	expect([]string{"--engine", engine, "--source", pgSrc, "--sink", pgSnk}, exitUsage,
		"the source "+pgSrc+": column fee (numeric in postgresql."+pgSchema+".src) is a numeric declared without precision",
		"the sink "+pgSnk+": column fee", "decimal_mapping STRICT", "numeric(p,s)", "ignore:", "embedded engine")
	expect([]string{"--engine", engine, "--source", "trino:postgresql." + pgSchema + ".tz", "--sink", "trino:?query=SELECT * FROM postgresql." + pgSchema + ".tz"}, exitUsage,
		"column at (time with time zone in postgresql."+pgSchema+".tz) is read by Trino's postgresql connector as time(6), without its zone")
	expect([]string{"--engine", engine, "--source", myTable("src"), "--sink", myTable("snk")}, exitUsage,
		"column flags (bit(5) in mysql."+myDB+".src) is read by Trino's mysql connector as a boolean, not as its bits",
		"column addr (inet6 in mysql."+myDB+".snk) is a type Trino's mysql connector does not map")
	// A query reading the table is refused too, and so is a named column.
	expect([]string{"--engine", engine, "--source", "trino:?query=SELECT * FROM postgresql." + pgSchema + ".src", "--sink", pgSnk}, exitUsage,
		"the source trino:?query=SELECT * FROM postgresql."+pgSchema+".src: column fee (numeric in postgresql."+pgSchema+".src)")
	expect([]string{"--engine", engine, "--source", pgSrc, "--sink", pgSnk, "--ignore", "fee", "--measure", "fee"}, exitUsage,
		"column fee (numeric in postgresql."+pgSchema+".src) is a numeric declared without precision")

	// Left out with ignore:, the other columns are reconciled, and the
	// notes name what was left out.
	expect([]string{"--engine", engine, "--source", pgSrc, "--sink", pgSnk, "--ignore", "fee"}, exitOK,
		"column fee (numeric in postgresql."+pgSchema+".src) is a numeric declared without precision")
	expect([]string{"--engine", engine, "--source", myTable("src"), "--sink", myTable("snk"), "--ignore", "flags", "--ignore", "addr"}, exitOK,
		"column addr (inet6 in mysql."+myDB+".src)")
}
