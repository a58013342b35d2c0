package load_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func utf(s string) []byte {
	b := make([]byte, 2, 2+len(s))
	binary.BigEndian.PutUint16(b, uint16(len(s)))
	return append(b, s...)
}

func gz(t *testing.T, members ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, m := range members {
		w := gzip.NewWriter(&b)
		w.Write([]byte(m))
		w.Close()
	}
	return b.Bytes()
}

// Hive partition folders become text columns, never sniffed, %XX decoded,
// the default partition NULL; by DuckDB's reader and by Read alike.
func TestPartitionColumns(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{
		"out/dt=2026-11-30/hour=03/part-0.csv":                         []byte("id\n1\n"),
		"out/dt=2026-11-30/hour=__HIVE_DEFAULT_PARTITION__/part-0.csv": []byte("id\n2\n"),
		"out/dt=2026-11-30%2F31/hour=04/part-0.csv":                    []byte("id\n3\n"),
	})
	for _, loc := range []sources.Location{
		{Role: "sink", URI: "out", Options: map[string]any{"kind": "csv", "partitions": true}, BaseDir: dir},
		{Role: "sink", URI: "out/**/*.csv", Options: map[string]any{"partitions": []any{"hour", "dt"}}, BaseDir: dir},
		{Role: "sink", URI: "out", Options: map[string]any{"kind": "csv", "partitions": true, "quote": "'"}, BaseDir: dir}, // read by Read
	} {
		db, in, err := loadInto(t, loc)
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, db, `SELECT id, dt, hour, __file FROM t ORDER BY id`); got != "[1 2026-11-30 03 out/dt=2026-11-30/hour=03/part-0.csv] [2 2026-11-30 NULL out/dt=2026-11-30/hour=__HIVE_DEFAULT_PARTITION__/part-0.csv] [3 2026-11-30/31 04 out/dt=2026-11-30%2F31/hour=04/part-0.csv]" {
			t.Errorf("%v: %s", loc.Options, got)
		}
		if len(in.Partitions) != 2 {
			t.Errorf("partitions %v", in.Partitions)
		}
	}
	writeFiles(t, dir, map[string][]byte{"out/part-9.csv": []byte("id\n9\n")})
	_, _, err := loadInto(t, sources.Location{Role: "sink", URI: "out", Options: map[string]any{"kind": "csv", "partitions": true}, BaseDir: dir})
	if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "out/part-9.csv") {
		t.Errorf("a file outside the partition layout: err = %v", err)
	}
}

// A partition folder whose name decodes to bytes that are not UTF-8 text
// (dt=%FF) is refused at listing, naming the folder and the file; found by
// a tester: the run failed in DuckDB ("Invalid unicode … detected in value
// construction"), naming no file.
func TestPartitionNotUTF8(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{
		"out/dt=2026-11-30/part-0.csv": []byte("id\n1\n"),
		"out/dt=%FF/part-0.csv":        []byte("id\n2\n"),
		"key/d%FFt=1/part-0.csv":       []byte("id\n3\n"),
	})
	for _, loc := range []sources.Location{
		{Role: "sink", URI: "out", Options: map[string]any{"kind": "csv", "partitions": []any{"dt"}}, BaseDir: dir},
		{Role: "sink", URI: "out/**/*.csv", Options: map[string]any{"partitions": true}, BaseDir: dir},
		{Role: "sink", URI: "out", Options: map[string]any{"kind": "csv", "partitions": true, "quote": "'"}, BaseDir: dir}, // read by Read
		{Role: "sink", URI: "key", Options: map[string]any{"kind": "csv", "partitions": true}, BaseDir: dir},
	} {
		_, _, err := loadInto(t, loc)
		if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "/part-0.csv: the partition folder ") || !strings.Contains(err.Error(), "%FF") || !strings.Contains(err.Error(), "not UTF-8") {
			t.Errorf("%s %v: err = %v, want ErrInvalidLocation naming the folder", loc.URI, loc.Options, err)
		}
	}
}

// columns: names a header-less file's columns; a record of another field
// count is an error naming file and line.
func TestHeaderlessColumns(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"out/part-0-0": []byte("E1,A,1.50\nE2,B,2.50\n"), "bad/part-0-0": []byte("E1,A,1.50\nE2,2.50\n")})
	db, _, err := loadInto(t, sources.Location{Role: "sink", URI: "out", Options: map[string]any{"kind": "csv", "columns": []any{"entry_id", "account", "amount"}}, BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, db, `SELECT entry_id, account, amount, __line FROM t ORDER BY __row`); got != "[E1 A 1.50 1] [E2 B 2.50 2]" {
		t.Errorf("rows %s", got)
	}
	_, _, err = loadInto(t, sources.Location{Role: "sink", URI: "bad", Options: map[string]any{"kind": "csv", "columns": []any{"entry_id", "account", "amount"}}, BaseDir: dir})
	if err == nil || !strings.Contains(err.Error(), "bad/part-0-0") || !strings.Contains(err.Error(), "Line: 2") && !strings.Contains(err.Error(), ":2:") {
		t.Errorf("a short record: err = %v, want file and line 2 named", err)
	}
}

// A valid length cuts plain and compressed part files; a cut inside a line
// or inside a gzip member is an error naming both files.
func TestValidLengthCuts(t *testing.T) {
	dir := t.TempDir()
	two := gz(t, "id\n1\n2\n")
	whole := gz(t, "id\n1\n2\n", "3\n")
	writeFiles(t, dir, map[string][]byte{
		"plain/part-0.csv":                    []byte("id\n1\n2\n3\n"),
		"plain/_part-0.csv.valid-length":      utf("7"),
		"zipped/part-0.csv.gz":                whole,
		"zipped/_part-0.csv.gz.valid-length":  utf(itoa(len(two))),
		"midline/part-0.csv":                  []byte("id\n1\n22\n"),
		"midline/.part-0.csv.valid-length":    utf("6"),
		"midgzip/part-0.csv.gz":               whole,
		"midgzip/_part-0.csv.gz.valid-length": utf(itoa(len(two) + 5)),
	})
	for uri, want := range map[string]string{"plain/*.csv": "[1] [2]", "zipped": "[1] [2]"} {
		opts := map[string]any{}
		if !strings.Contains(uri, ".csv") {
			opts["kind"] = "csv"
		}
		db, in, err := loadInto(t, sources.Location{Role: "sink", URI: uri, Options: opts, BaseDir: dir})
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if got := rowsOf(t, db, `SELECT id FROM t ORDER BY __row`); got != want {
			t.Errorf("%s: %s, want %s", uri, got, want)
		}
		if in.Files[0].ValidLength == nil {
			t.Errorf("%s: the cut is not recorded", uri)
		}
	}
	for _, uri := range []string{"midline", "midgzip"} {
		_, _, err := loadInto(t, sources.Location{Role: "sink", URI: uri, Options: map[string]any{"kind": "csv"}, BaseDir: dir})
		if !errors.Is(err, fileset.ErrValidLength) || !strings.Contains(err.Error(), "valid-length") || !strings.Contains(err.Error(), uri+"/part-0.csv") {
			t.Errorf("%s: err = %v, want ErrValidLength naming both files", uri, err)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Parquet files of different schemas: integers widen and decimals unify
// exactly, by DuckDB's reader and by Read — DECIMAL(38,0) holding 35 digits
// and DECIMAL(38,10) holding 1.5, 48 digits as declared, to DECIMAL(36,1),
// the narrowest type their values need (DuckDB's cast to DECIMAL(38,10)
// failed with its raw error); a value no DECIMAL holds beside the other
// values' fraction digits, or a column one file lacks, is an error naming
// the files and the value.
func TestParquetUnify(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := sourcetest.DB(t)
	for name, q := range map[string]string{
		"w/a.parquet":    `SELECT 1::INTEGER AS id, 12.34::DECIMAL(18,2) AS amount`,
		"w/b.parquet":    `SELECT 3000000000::BIGINT AS id, 1.2345::DECIMAL(20,4) AS amount`,
		"big/a.parquet":  `SELECT 1::BIGINT AS id, 1.5::DECIMAL(38,1) AS amount`,
		"big/b.parquet":  `SELECT 2::BIGINT AS id, 1234567890123456789012345678901234567.8::DECIMAL(38,1) AS x`,
		"wide/a.parquet": `SELECT 1::BIGINT AS id, 1234567890123456789012345678901234567.8::DECIMAL(38,1) AS amount`,
		"wide/b.parquet": `SELECT 2::BIGINT AS id, 0.12::DECIMAL(3,2) AS amount`,
		"p38/a.parquet":  `SELECT 1::BIGINT AS id, 12345678901234567890123456789012345::DECIMAL(38,0) AS amount`,
		"p38/b.parquet":  `SELECT 2::BIGINT AS id, 1.5::DECIMAL(38,10) AS amount`,
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := db.Exec(ctx, "COPY ("+q+") TO "+duck.Literal(p)+" (FORMAT parquet)"); err != nil {
			t.Fatal(err)
		}
	}
	// By DuckDB's reader (Scan), then by Read (a source without Scan).
	for _, wrap := range []func(sources.Source) sources.Source{func(s sources.Source) sources.Source { return s }, readOnly} {
		out, err := duck.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		src, err := sources.Open(sources.Location{Role: "sink", URI: "w/*.parquet", BaseDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		in, err := load.Table(ctx, out, "t", wrap(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, out, `SELECT id, amount, typeof(id), typeof(amount) FROM t ORDER BY __row`); got != "[1 12.3400 BIGINT DECIMAL(20,4)] [3000000000 1.2345 BIGINT DECIMAL(20,4)]" {
			t.Errorf("rows %s (columns %v)", got, in.Columns)
		}
		src, err = sources.Open(sources.Location{Role: "sink", URI: "p38/*.parquet", BaseDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := load.Table(ctx, out, "p38", wrap(src)); err != nil {
			t.Errorf("p38: %v", err)
		} else if got, want := rowsOf(t, out, `SELECT amount, typeof(amount) FROM p38 ORDER BY __row`), "[12345678901234567890123456789012345.0 DECIMAL(36,1)] [1.5 DECIMAL(36,1)]"; got != want {
			t.Errorf("p38: rows %s, want %s", got, want)
		}
		for uri, want := range map[string]string{
			"big/*.parquet":  "big/b.parquet has a column x (DECIMAL(38,1) (decimal(38, 1))) that big/a.parquet lacks",
			"wide/*.parquet": `wide/a.parquet:1: column amount: value "1234567890123456789012345678901234567.8" has 37 integer digits; beside the 2 fraction digits the column's values need (0.12 at wide/b.parquet:1), an exact DECIMAL (38 digits at most) holds 36 (the column is DECIMAL(38,1) in wide/a.parquet, DECIMAL(3,2) in wide/b.parquet)`,
		} {
			src, _ := sources.Open(sources.Location{Role: "sink", URI: uri, BaseDir: dir})
			_, err := load.Table(ctx, out, "u", wrap(src))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: err = %v, want %q", uri, err, want)
			}
		}
		out.Close()
	}
}

// readOnly hides a source's Scanner, so the loader reads its records.
func readOnly(s sources.Source) sources.Source { return struct{ sources.Source }{s} }

// fixin: a CSV folder below key=value folders, read without partitions:,
// has only its files' columns: DuckDB's read_csv would add (and sniff) a
// column per folder key on its own, and with partitions: rename the
// loader's own partition columns to dt_1, hour_1.
func TestFixinNoHivePartitionsUnlessDeclared(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"out/dt=2026-11-30/part-0.csv": []byte("id\n1\n")})
	_, in, err := loadInto(t, sources.Location{Role: "sink", URI: "out", Options: map[string]any{"kind": "csv"}, BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Columns) != 1 || in.Columns[0].Name != "id" {
		t.Errorf("columns %v, want only id", in.Columns)
	}
}

// An input of one file gets its provenance without the joins a run of
// files needs (file_provenance.sql): the same __file, __line (physical
// lines, a quoted field over two lines included), __row and partition
// values as the same file read among others.
func TestOneFileProvenance(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{
		"out/dt=2026-11-30/hour=03/part-0.csv": []byte("id,note\n1,a\n2,\"two\nlines\"\n3,c\n"),
		"out/dt=2026-11-30/hour=04/part-0.csv": []byte("id,note\n4,d\n"),
	})
	const q = `SELECT id, dt, hour, __file, __line, __row FROM t WHERE hour = '03' ORDER BY __row`
	var want string
	for i, loc := range []sources.Location{
		{Role: "sink", URI: "out/**/*.csv", Options: map[string]any{"partitions": []any{"dt", "hour"}}, BaseDir: dir},
		{Role: "sink", URI: "out/**/hour=03/*.csv", Options: map[string]any{"partitions": []any{"dt", "hour"}}, BaseDir: dir},
	} {
		db, _, err := loadInto(t, loc)
		if err != nil {
			t.Fatal(err)
		}
		got := rowsOf(t, db, q)
		if i == 0 {
			want = got
			if want != "[1 2026-11-30 03 out/dt=2026-11-30/hour=03/part-0.csv 2 0] [2 2026-11-30 03 out/dt=2026-11-30/hour=03/part-0.csv 3 1] [3 2026-11-30 03 out/dt=2026-11-30/hour=03/part-0.csv 5 2]" {
				t.Fatalf("two files: %s", got)
			}
			continue
		}
		if got != want {
			t.Errorf("one file: %s, want %s", got, want)
		}
	}
}

// A Parquet input of one file is kept as read and its table is a view
// numbering the rows by DuckDB's rowid (overRaw): read by four threads,
// row group by row group, the rows keep the file's order, so __line and
// __row are those of the same file read among others (in one pass, from
// file_row_number). The file's id is its row number: every row is checked.
func TestOneParquetFileProvenance(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gen := sourcetest.DB(t)
	for _, name := range []string{"one/part-0.parquet", "two/part-0.parquet", "two/part-1.parquet"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		q := `SELECT i AS id, 'a' || (i % 7) AS account, CAST(i AS DECIMAL(18,2)) / 100 AS amount FROM range(30000) AS t(i)`
		if err := gen.Exec(ctx, "COPY ("+q+") TO "+duck.Literal(filepath.Join(dir, name))+" (FORMAT parquet, ROW_GROUP_SIZE 2048)"); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		uri  string
		view bool
	}{{"one/*.parquet", true}, {"two/*.parquet", false}} {
		db, err := duck.Open(ctx, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Exec(ctx, "SET threads = 4"); err != nil {
			t.Fatal(err)
		}
		src, err := sources.Open(sources.Location{Role: "source", URI: c.uri, BaseDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := load.Table(ctx, db, "t", src); err != nil {
			t.Fatal(err)
		}
		src.Close()
		if isView, err := db.IsView(ctx, "t"); err != nil || isView != c.view {
			t.Fatalf("%s: t is a view: %v (%v), want %v", c.uri, isView, err, c.view)
		}
		want := "[30000 30000 0 0]"
		if !c.view {
			want = "[60000 30000 0 0]"
		}
		got := rowsOf(t, db, `SELECT count(*), count(DISTINCT __line),
			count(*) FILTER (WHERE __line <> id + 1 OR __file NOT LIKE '%/part-0.parquet' AND __file NOT LIKE '%/part-1.parquet'),
			count(*) FILTER (WHERE __row <> id + CASE WHEN __file LIKE '%part-1.parquet' THEN 30000 ELSE 0 END)
			FROM t`)
		if got != want {
			t.Errorf("%s: rows, distinct lines, rows whose __line or __file is not theirs, rows out of order = %s, want %s", c.uri, got, want)
		}
	}
}

// A one-file Parquet input that a rename rewrites is read in one pass
// into its table (a raw table and a view over it would be copied into a
// table by the rename: two copies held at once; parquetOnePass,
// TestParquetOnePass), with the same provenance.
func TestOneParquetFileRenamedOnePass(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gen := sourcetest.DB(t)
	q := `SELECT i AS id, CAST(i AS DECIMAL(18,2)) AS amt FROM range(5000) AS t(i)`
	if err := gen.Exec(ctx, "COPY ("+q+") TO "+duck.Literal(filepath.Join(dir, "a.parquet"))+" (FORMAT parquet, ROW_GROUP_SIZE 1024)"); err != nil {
		t.Fatal(err)
	}
	db, err := duck.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := sources.Open(sources.Location{Role: "source", URI: "a.parquet", BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := load.TableWith(ctx, db, "t", src, load.Options{Rename: map[string]string{"amt": "amount"}}); err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, db, `SELECT count(*), count(*) FILTER (WHERE __line <> id + 1 OR __row <> id), sum(amount) FROM t`); got != "[5000 0 12497500.00]" {
		t.Errorf("rows, rows out of place, sum(amount) = %s", got)
	}
}

// Which Parquet scans are read in one pass with their provenance, and
// which into a raw table under a view (overRaw).
func TestParquetOnePass(t *testing.T) {
	one := &sources.Scan{Format: sources.FormatParquet, Files: []sources.ScanFile{{Path: "a.parquet", Name: "a.parquet"}}}
	two := &sources.Scan{Format: sources.FormatParquet, Files: []sources.ScanFile{{Path: "a.parquet"}, {Path: "b.parquet"}}}
	frn := &sources.Scan{Format: sources.FormatParquet, Files: []sources.ScanFile{{Path: "a.parquet", Columns: []sources.Column{{Name: "File_Row_Number", Type: "BIGINT"}}}}}
	csv := &sources.Scan{Format: sources.FormatCSV, Files: []sources.ScanFile{{Path: "a.csv"}}}
	for _, c := range []struct {
		name          string
		scan          *sources.Scan
		view, rewrite bool
		want          bool
	}{
		{"one file: raw table and a view", one, false, false, false},
		{"one file read in place", one, true, false, true},
		{"one file renamed", one, false, true, true},
		{"two files", two, false, false, true},
		{"a file_row_number column", frn, false, true, false},
		{"csv", csv, false, true, false},
	} {
		if got := load.ParquetOnePass(c.scan, c.view, c.rewrite); got != c.want {
			t.Errorf("%s: one pass %v, want %v", c.name, got, c.want)
		}
	}
}

// A column named rowid (DuckDB's name for a table's row id, which the
// two-pass provenance numbers rows by) is loaded as a column like any
// other, and __line and __row still count the rows: a Parquet file with
// columns file_row_number and rowid, and a CSV file with a rowid column.
func TestRowidColumn(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := sourcetest.DB(t)
	q := `SELECT i AS id, 50 - i AS rowid, i * 10 AS file_row_number FROM range(3) AS t(i)`
	if err := db.Exec(ctx, "COPY ("+q+") TO "+duck.Literal(filepath.Join(dir, "a.parquet"))+" (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string][]byte{"b.csv": []byte("id,rowid\n0,50\n1,49\n2,48\n")})
	for uri, want := range map[string]string{
		"a.parquet": "[0 50 1 0] [1 49 2 1] [2 48 3 2]",
		"b.csv":     "[0 50 2 0] [1 49 3 1] [2 48 4 2]",
	} {
		out, _, err := loadInto(t, sources.Location{Role: "sink", URI: uri, BaseDir: dir})
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if got := rowsOf(t, out, `SELECT id, rowid, __line, __row FROM t ORDER BY __row`); got != want {
			t.Errorf("%s: %s, want %s", uri, got, want)
		}
	}
}
