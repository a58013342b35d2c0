//go:build duckdb_arrow

package duck_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// DuckDB's out-of-memory error is recognised by its type, not its text,
// through every method that runs a statement; other DuckDB errors are not
// taken for it. A list aggregate cannot spill, so 8MB is exceeded for sure.
func TestOutOfMemory(t *testing.T) {
	ctx := context.Background()
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(ctx, "SET memory_limit = '8MB'"); err != nil {
		t.Fatal(err)
	}
	const big = "SELECT list(i) AS l FROM range(50000000) t(i)"
	_, _, serr := db.Strings(ctx, big)
	_, cerr := db.Count(ctx, "SELECT len(l) FROM ("+big+")")
	for _, tt := range []struct {
		name string
		err  error
	}{{"Exec", db.Exec(ctx, big)}, {"Strings", serr}, {"Count", cerr}} {
		name, err := tt.name, tt.err
		var de *duckdb.Error
		if !errors.As(err, &de) || de.Type != duckdb.ErrorTypeOutOfMemory {
			t.Fatalf("%s: %v, want DuckDB's out-of-memory error", name, err)
		}
		if !errors.Is(err, duck.ErrOutOfMemory) || fault.Of(err) != fault.Runtime {
			t.Errorf("%s: %v does not match ErrOutOfMemory (class %v)", name, err, fault.Of(err))
		}
		if !strings.HasPrefix(err.Error(), "duckdb: SELECT ") || !strings.Contains(err.Error(), "Out of Memory Error") {
			t.Errorf("%s: message %q, want the statement and DuckDB's own words", name, err)
		}
	}

	for _, q := range []string{"SELECT * FROM no_such_table", "SELECT 1/'x'::INTEGER", "SELEC 1"} {
		if err := db.Exec(ctx, q); err == nil || errors.Is(err, duck.ErrOutOfMemory) {
			t.Errorf("%s: %v, want an error that is not out of memory", q, err)
		}
	}
}

// Every setting of queries/engine/session_setup.sql takes effect, whatever
// the host's TZ: results must never depend on the machine.
func TestSessionSetup(t *testing.T) {
	t.Setenv("TZ", "Asia/Shanghai")
	ctx := context.Background()
	tmp := t.TempDir()
	db, err := duck.Open(ctx, tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, rows, err := db.Strings(ctx, "SELECT current_setting('TimeZone'), current_setting('temp_directory'), current_setting('memory_limit'), current_setting('preserve_insertion_order'), current_setting('parquet_metadata_cache')")
	if err != nil {
		t.Fatal(err)
	}
	got := []string{*rows[0][0], *rows[0][1], *rows[0][3], *rows[0][4]}
	if got[0] != "UTC" || got[1] != tmp || got[2] != "true" || got[3] != "true" {
		t.Errorf("settings %q, want UTC, %s, true, true", got, tmp)
	}
	if lim := *rows[0][2]; !strings.Contains(lim, "MiB") && !strings.Contains(lim, "MB") {
		t.Errorf("memory_limit %q, want the cap %s", lim, duck.MemoryLimit)
	}
	if err := db.SetMemoryLimit(ctx, "1GB"); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, "CREATE TABLE t AS SELECT * FROM range(3)"); err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountRows(ctx, "t"); err != nil || n != 3 {
		t.Errorf("CountRows = %d, %v", n, err)
	}
	if err := db.DropTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := db.DropTable(ctx, "t"); err != nil {
		t.Errorf("dropping a table that is gone: %v", err)
	}
}

// Materialize turns a view into a table of the same name and rows (a step
// that rewrites the table in place needs one), leaves a table as it is,
// and IsView tells the two apart.
func TestMaterialize(t *testing.T) {
	ctx := context.Background()
	db := sourcetest.DB(t)
	if err := db.Exec(ctx, "CREATE TABLE t AS SELECT range AS n FROM range(5)"); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(ctx, "CREATE VIEW v AS SELECT n * 2 AS m FROM t"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"t": false, "v": true} {
		if got, err := db.IsView(ctx, name); err != nil || got != want {
			t.Fatalf("IsView(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	for _, name := range []string{"v", "t"} {
		if err := db.Materialize(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if view, err := db.IsView(ctx, "v"); err != nil || view {
		t.Fatalf("v is still a view (%v)", err)
	}
	// A table now: the rows stay when t changes, and it can be altered.
	if err := db.Exec(ctx, "DELETE FROM t; ALTER TABLE v ALTER COLUMN m SET DATA TYPE VARCHAR"); err != nil {
		t.Fatal(err)
	}
	n, err := db.Count(ctx, "SELECT sum(CAST(m AS INTEGER)) FROM v")
	if err != nil || n != 20 {
		t.Errorf("sum of v = %d (%v), want 20 = 2·(0+1+2+3+4)", n, err)
	}
	if n, err := db.CountRows(ctx, "t"); err != nil || n != 0 {
		t.Errorf("t has %d rows (%v) after DELETE", n, err)
	}
}

// A view of ViewOver adds columns to its table's rows: a column converted
// in place is converted in the table (AlterTarget) and the view made again
// (Refresh) keeps the same rows with the new type and the same row
// numbers; Materialize and DropView drop the table with the view.
func TestViewOver(t *testing.T) {
	ctx := context.Background()
	db := sourcetest.DB(t)
	if err := db.Exec(ctx, "CREATE TABLE r AS SELECT CAST(range AS VARCHAR) || '.5' AS x FROM range(4)"); err != nil {
		t.Fatal(err)
	}
	if err := db.ViewOver(ctx, "v", "r", "CREATE OR REPLACE VIEW v AS SELECT r.*, r.rowid + 2 AS __line FROM r"); err != nil {
		t.Fatal(err)
	}
	if got := db.AlterTarget("v"); got != "r" {
		t.Fatalf("AlterTarget(v) = %s", got)
	}
	if got := db.AlterTarget("r"); got != "r" {
		t.Errorf("AlterTarget(r) = %s", got)
	}
	if err := db.Exec(ctx, "ALTER TABLE r ALTER COLUMN x SET DATA TYPE DECIMAL(9,1) USING CAST(x AS DECIMAL(9,1))"); err != nil {
		t.Fatal(err)
	}
	if err := db.Refresh(ctx, "v"); err != nil {
		t.Fatal(err)
	}
	// The catalog (what the checks plan by) has the view's new type.
	cols, err := db.Columns(ctx, "v")
	if err != nil || len(cols) != 2 || cols[0].Type != "DECIMAL(9,1)" || cols[1].Name != "__line" {
		t.Fatalf("columns of v: %v, %v", cols, err)
	}
	_, rows, err := db.Strings(ctx, "SELECT string_agg(CAST(x * 2 AS VARCHAR) || '@' || __line, ' ' ORDER BY __line), any_value(typeof(x)) FROM v")
	if err != nil {
		t.Fatal(err)
	}
	if got := *rows[0][0] + " " + *rows[0][1]; got != "1.0@2 3.0@3 5.0@4 7.0@5 DECIMAL(9,1)" {
		t.Errorf("v after the conversion: %s", got)
	}
	if err := db.Materialize(ctx, "v"); err != nil {
		t.Fatal(err)
	}
	if n, err := db.CountRows(ctx, "v"); err != nil || n != 4 {
		t.Errorf("v materialised: %d rows, %v", n, err)
	}
	if _, err := db.CountRows(ctx, "r"); err == nil {
		t.Error("r was not dropped with the view materialised")
	}
	if got := db.AlterTarget("v"); got != "v" {
		t.Errorf("AlterTarget(v) after Materialize = %s", got)
	}
}

// Columns gives each column's name and type as DuckDB's catalog
// (information_schema.columns) writes them, for tables, temporary tables
// and views, types of every kind the checks meet: the type strings are
// compared by checks.sameTypes and read by the typed comparison.
func TestColumns(t *testing.T) {
	ctx := context.Background()
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TYPE mood AS ENUM ('a', 'b')`,
		`CREATE TABLE t AS SELECT 1::TINYINT AS "a b", 2::SMALLINT AS "Mixed", 3::INTEGER AS i, 4::BIGINT AS bi, 5::HUGEINT AS hi,
			6::UBIGINT AS ub, 7::UHUGEINT AS uh, 1.5::FLOAT AS f, 2.5::DOUBLE AS d, 1.25::DECIMAL(4,2) AS d4, 1.25::DECIMAL(18,2) AS d18,
			1.25::DECIMAL(38,10) AS d38, 'x'::VARCHAR AS v, 'x'::BLOB AS bl, TRUE AS b, DATE '2024-01-01' AS dt,
			TIME '01:02:03' AS tm, TIMESTAMP '2024-01-01 01:02:03' AS ts, TIMESTAMPTZ '2024-01-01 01:02:03+00' AS tz,
			TIMESTAMP_NS '2024-01-01 01:02:03' AS tns, INTERVAL 1 DAY AS iv, 'a'::mood AS m, [1, 2] AS l, {'k': 1, 'w': 'x'} AS s,
			MAP {'k': 1} AS mp, uuid() AS u, [1, 2]::INTEGER[2] AS arr`,
		`CREATE TEMP TABLE tt AS SELECT 1 AS a, 'x' AS "B"`,
		`CREATE VIEW vw AS SELECT i, d18, 'y' AS c FROM t`,
		`CREATE TABLE "Odd.Name" AS SELECT 1 AS x`,
	} {
		if err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, table := range []string{"t", "tt", "vw", "Odd.Name"} {
		got, err := db.Columns(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		_, rows, err := db.Strings(ctx, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '"+table+"' ORDER BY ordinal_position")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(rows) || len(got) == 0 {
			t.Fatalf("%s: %d columns, the catalog %d", table, len(got), len(rows))
		}
		for i, r := range rows {
			if got[i].Name != *r[0] || got[i].Type != *r[1] {
				t.Errorf("%s column %d: %s %s, the catalog %s %s", table, i, got[i].Name, got[i].Type, *r[0], *r[1])
			}
		}
	}
	// a table that does not exist has no columns, as in the catalog
	for _, table := range []string{"no_such_table", "No Such.Table"} {
		if cols, err := db.Columns(ctx, table); err != nil || len(cols) != 0 {
			t.Errorf("%s: %v, %v; want no columns and no error", table, cols, err)
		}
	}
}

// With Parquet footers cached (session_setup.sql), a file written again
// under the same name is read as it is now, not by its old footer: a
// smaller file, then a larger one, each read whole.
func TestParquetFooterCacheSeesNewFile(t *testing.T) {
	ctx := context.Background()
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	path := filepath.Join(t.TempDir(), "p.parquet")
	for _, n := range []int{1000, 10, 100000} {
		if err := db.Exec(ctx, fmt.Sprintf("COPY (SELECT range AS i, range * 2 AS j FROM range(%d)) TO '%s' (FORMAT parquet)", n, path)); err != nil {
			t.Fatal(err)
		}
		_, rows, err := db.Strings(ctx, fmt.Sprintf("SELECT count(*), sum(j) FROM read_parquet('%s')", path))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprint(n, " ", n*(n-1)); *rows[0][0]+" "+*rows[0][1] != want {
			t.Errorf("%d rows written: read %s %s, want %s", n, *rows[0][0], *rows[0][1], want)
		}
	}
}
