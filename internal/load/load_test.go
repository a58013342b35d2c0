package load_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"

	_ "github.com/reconcile-dev/reconcile/sources/all" // the tests read inputs of every kind
)

// loadInto opens loc and loads it as table t of a fresh DuckDB session.
func loadInto(t *testing.T, loc sources.Location) (*duck.DB, *sources.Input, error) {
	t.Helper()
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := sources.Open(loc)
	if err != nil {
		return db, nil, err
	}
	defer src.Close()
	in, err := load.Table(context.Background(), db, "t", src)
	return db, in, err
}

// rowsOf returns the rows of query as text, NULL as "NULL".
func rowsOf(t *testing.T, db *duck.DB, query string) string {
	t.Helper()
	_, rows, err := db.Strings(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = "NULL"
			if v != nil {
				vals[i] = *v
			}
		}
		out = append(out, "["+strings.Join(vals, " ")+"]")
	}
	return strings.Join(out, " ")
}

var compressors = map[string]func(io.Writer) (io.WriteCloser, error){
	".gz":  func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil },
	".zst": func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) },
	".GZ":  func(w io.Writer) (io.WriteCloser, error) { return gzip.NewWriter(w), nil },
	".ZST": func(w io.Writer) (io.WriteCloser, error) { return zstd.NewWriter(w) },
}

// write writes body to dir/name, compressed by ext ("" for none), and
// returns the path.
func write(t *testing.T, dir, name, ext, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if ext == "" {
		return p
	}
	sourcetest.Compress(t, p, p+ext, compressors[ext])
	return p + ext
}

// A compressed input reads like the plain one, with __line counting lines
// of the decompressed text (after a blank line and a field spanning two
// lines too) — for CSV, read natively by DuckDB, and for NDJSON, decoded in
// Go. Before, an .ndjson.gz failed with "invalid character '\x1f'" and a
// .zst CSV or NDJSON did not read at all. Upper-case extensions count, as
// they do for the kind.
func TestCompressedInputs(t *testing.T) {
	csvBody := "id,note\n1,a\n\n2,\"two\nlines\"\n3,c\n"
	ndjsonBody := "{\"id\": \"1\", \"note\": \"a\"}\n\n{\"id\": \"2\", \"note\": \"two\\nlines\"}\n{\"id\": 3, \"note\": \"c\"}\n"
	for _, kind := range []struct{ name, body, want string }{
		{"a.csv", csvBody, "[1 a 2] [2 two\nlines 4] [3 c 6]"},
		{"a.ndjson", ndjsonBody, "[1 a 1] [2 two\nlines 3] [3 c 4]"},
	} {
		for _, ext := range []string{"", ".gz", ".zst", ".GZ", ".ZST"} {
			t.Run(kind.name+ext, func(t *testing.T) {
				p := write(t, t.TempDir(), kind.name, ext, kind.body)
				db, in, err := loadInto(t, sources.Location{Role: "sink", URI: p, BaseDir: filepath.Dir(p)})
				if err != nil {
					t.Fatal(err)
				}
				if got := rowsOf(t, db, "SELECT id, note, __line FROM t ORDER BY __row"); got != kind.want {
					t.Errorf("rows %q, want %q", got, kind.want)
				}
				if len(in.Files) != 1 || in.Files[0].Path != filepath.Base(p) {
					t.Errorf("files %+v, want %s", in.Files, filepath.Base(p))
				}
			})
		}
	}
}

// One glob over plain, gzip and zstd parts reads every part in name order
// (DuckDB's read_csv takes one compression per call: runs of one
// compression are read in turn).
func TestMixedCompressionGlob(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "part-0.csv", "", "id\n1\n2\n")
	write(t, dir, "part-1.csv", ".gz", "id\n3\n")
	write(t, dir, "part-2.csv", ".zst", "id\n4\n5\n")
	write(t, dir, "part-3.csv", "", "id\n6\n")
	db, in, err := loadInto(t, sources.Location{Role: "sink", URI: "part-*", BaseDir: dir, Options: map[string]any{"kind": "csv"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "[1 part-0.csv 2 0] [2 part-0.csv 3 1] [3 part-1.csv.gz 2 2] [4 part-2.csv.zst 2 3] [5 part-2.csv.zst 3 4] [6 part-3.csv 2 5]"
	if got := rowsOf(t, db, "SELECT id, __file, __line, __row FROM t ORDER BY __row"); got != want {
		t.Errorf("rows %s\nwant %s", got, want)
	}
	if in.Rows != 6 || len(in.Files) != 4 {
		t.Errorf("rows %d files %d", in.Rows, len(in.Files))
	}
}

// A file whose name promises a compression it does not have is an error
// naming the file, never read as text.
func TestCompressionMismatch(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.ndjson.gz"), []byte("{\"id\": 1}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.csv.zst"), []byte("id\n1\n"), 0o644)
	for _, name := range []string{"a.ndjson.gz", "b.csv.zst"} {
		_, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, name)})
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
	}
}

// A CSV with another quote character reads the same natively and in Go:
// the quote encloses delimiters and line breaks, a doubled quote is a quote,
// and '"' is an ordinary character; __line is the physical line.
func TestCSVOtherQuote(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "q.csv", "", "id;note\n1;'a;b'\n\n2;'it''s \"x\"\nend'\n3;\"plain\"\n")
	loc := sources.Location{Role: "sink", URI: p, BaseDir: dir, Options: map[string]any{"delimiter": ";", "quote": "'"}}
	db, _, err := loadInto(t, loc)
	if err != nil {
		t.Fatal(err)
	}
	want := "[1 a;b 2] [2 it's \"x\"\nend 4] [3 \"plain\" 6]"
	if got := rowsOf(t, db, "SELECT id, note, __line FROM t ORDER BY __row"); got != want {
		t.Errorf("native: %q, want %q", got, want)
	}
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	_, rr, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var got []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, fmt.Sprintf("[%s %s %s]", rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i), rec.Column(3).ValueStr(i)))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if g := strings.Join(got, " "); g != want {
		t.Errorf("Read: %q, want %q", g, want)
	}
}

// In a one-column CSV an empty line is a record whose one field is empty —
// a NULL the null_ids check reports, not a line skipped unseen — wherever it
// stands (DuckDB's read_csv reads it so; with several columns it skips
// empty lines). Read and the native scan agree, lines included.
func TestOneColumnEmptyLines(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "ids.csv", "", "id\n1\n\n\"two\nlines\"\n3\n\n")
	loc := sources.Location{Role: "sink", URI: p, BaseDir: dir}
	db, _, err := loadInto(t, loc)
	if err != nil {
		t.Fatal(err)
	}
	want := "[1 2] [NULL 3] [two\nlines 4] [3 6] [NULL 7]"
	if got := rowsOf(t, db, "SELECT id, __line FROM t ORDER BY __row"); got != want {
		t.Errorf("native: %q, want %q", got, want)
	}
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	_, rr, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var got []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, fmt.Sprintf("[%s %s]", rec.Column(0).ValueStr(i), rec.Column(2).ValueStr(i)))
		}
	}
	if g := strings.Join(got, " "); g != strings.ReplaceAll(want, "NULL", "(null)") {
		t.Errorf("Read: %q, want %q", g, want)
	}
}

// A cancelled load returns an error matching context.Canceled and leaves
// no table, also when the source reads natively.
func TestCancelledLoad(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.csv", "", "id\n1\n")
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	src, err := sources.Open(sources.Location{Role: "sink", URI: p})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := load.Table(ctx, db, "t", src); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n, _ := db.Count(context.Background(), "SELECT count(*) FROM information_schema.tables"); n != 0 {
		t.Errorf("%d table(s) left", n)
	}
}

// A declared type is applied with a checked cast; a value that does not
// convert, or that a declared DECIMAL would round, names file and line.
func TestDeclaredTypes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte("id,amount\n1,1.25\n2,2.5\n"), 0o644)
	db, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.csv"), Options: map[string]any{"types": map[string]any{"id": "BIGINT", "amount": "DECIMAL(10,2)"}}})
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := db.Columns(context.Background(), "t")
	if cols[0].Type != "BIGINT" || cols[1].Type != "DECIMAL(10,2)" {
		t.Errorf("types %v", cols)
	}
	_, _, err = loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.csv"), Options: map[string]any{"types": map[string]any{"amount": "DECIMAL(10,1)"}}})
	if err == nil || !strings.Contains(err.Error(), "a.csv:2: column amount: value \"1.25\"") {
		t.Errorf("err = %v, want the rounding value 1.25 at line 2 named", err)
	}
	_, _, err = loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.csv"), Options: map[string]any{"delimiter": ",", "colour": "red"}})
	if err == nil || !strings.Contains(err.Error(), "unknown option(s) colour") {
		t.Errorf("err = %v, want unknown option colour", err)
	}
}

// __line is the physical line a record starts on, also after blank lines
// and quoted fields that span lines (DuckDB numbers records, not lines).
func TestCSVPhysicalLines(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte("id,note\n1,a\n\n2,\"two\nlines\"\n3,c\n"), 0o644)
	db, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.csv")})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := db.Strings(context.Background(), "SELECT id, __line FROM t ORDER BY __row")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(deref(rows[0]), deref(rows[1]), deref(rows[2])), "[1 2] [2 4] [3 6]"; got != want {
		t.Errorf("id and line: %s, want %s", got, want)
	}
}

func deref(r []*string) []string {
	out := make([]string, len(r))
	for i, v := range r {
		out[i] = "NULL"
		if v != nil {
			out[i] = *v
		}
	}
	return out
}

// A .tsv is tab-delimited, compressed or not, in any letter case.
func TestTSVDefaultDelimiter(t *testing.T) {
	for _, ext := range []string{"", ".gz", ".ZST"} {
		p := write(t, t.TempDir(), "A.TSV", ext, "id\tnote\n1\ta,b\n")
		db, _, err := loadInto(t, sources.Location{Role: "sink", URI: p})
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, db, "SELECT id, note FROM t"); got != "[1 a,b]" {
			t.Errorf("%s: %q", filepath.Base(p), got)
		}
	}
}

// Under decimal_separator "," and thousands ".", a value is read only when
// every group after the first has three digits: 1.23,50 or 1234.567,00 is
// refused (a grouping that cannot be a European amount is no number to
// guess at), 1.234.567,89 and 1234,5 are read exactly, text to text.
func TestDecimalCommaGrouping(t *testing.T) {
	opts := map[string]any{"delimiter": ";", "decimal_separator": ",", "thousands": ".", "types": map[string]any{"amount": "DECIMAL(18,2)"}}
	for _, c := range []struct{ value, want, refused string }{
		{value: "1.234.567,89", want: "[1234567.89]"},
		{value: "1234,5", want: "[1234.50]"},
		{value: " -0,01 ", want: "[-0.01]"},
		{value: "+12", want: "[12.00]"},
		{value: "1.23,50", refused: `value "1.23,50" is not a number`},
		{value: "1234.567,00", refused: `value "1234.567,00" is not a number`},
		{value: "1.234.56", refused: `value "1.234.56" is not a number`},
		{value: "1,234.50", refused: `value "1,234.50" is not a number`},
		{value: "12,", refused: `value "12," is not a number`},
		{value: ",5", refused: `value ",5" is not a number`},
	} {
		t.Run(c.value, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.csv"), []byte("id;amount\nE1;"+c.value+"\n"), 0o644)
			db, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.csv"), Options: opts})
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), "a.csv:2: column amount: "+c.refused) {
					t.Fatalf("err = %v, want %q at a.csv:2", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := rowsOf(t, db, "SELECT amount::VARCHAR FROM t"); got != c.want {
				t.Errorf("amount = %s, want %s", got, c.want)
			}
		})
	}
}

// A text column declared TIMESTAMPTZ is read in the input's zone where a
// value has no offset (before, always as UTC): 10:00 in Asia/Shanghai is
// 02:00 UTC; a value with an offset, Z or a zone name is its own instant
// whatever the zone; a value that is no timestamp names its file and line.
func TestDeclaredTimestamptzInZone(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "a.csv", "", "id,ts\n1,2024-03-01 10:00:00\n2,2024-03-01 10:00:00+01:00\n3,2024-03-01T10:00:00Z\n4,2024-03-01 10:00:00 Asia/Tokyo\n5,\n")
	loc := sources.Location{Role: "sink", URI: p, Options: map[string]any{"types": map[string]any{"ts": "TIMESTAMPTZ"}}}
	for _, tt := range []struct{ zone, want string }{
		{"Asia/Shanghai", "[1 2024-03-01 02:00:00+00] [2 2024-03-01 09:00:00+00] [3 2024-03-01 10:00:00+00] [4 2024-03-01 01:00:00+00] [5 NULL]"},
		{"", "[1 2024-03-01 10:00:00+00] [2 2024-03-01 09:00:00+00] [3 2024-03-01 10:00:00+00] [4 2024-03-01 01:00:00+00] [5 NULL]"},
	} {
		db, err := duck.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		src, err := sources.Open(loc)
		if err != nil {
			t.Fatal(err)
		}
		in, err := load.TableWith(context.Background(), db, "t", src, load.Options{TimeZone: tt.zone})
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, db, "SELECT id, ts::VARCHAR FROM t ORDER BY id"); got != tt.want {
			t.Errorf("zone %q: %s, want %s", tt.zone, got, tt.want)
		}
		if want := map[string]string{"": "UTC"}[tt.zone]; in.TimeZone != tt.zone && in.TimeZone != want {
			t.Errorf("Input.TimeZone %q for zone %q", in.TimeZone, tt.zone)
		}
	}
	bad := write(t, dir, "b.csv", "", "id,ts\n1,2024-03-01 10:00:00\n2,yesterday\n")
	src, err := sources.Open(sources.Location{Role: "sink", URI: bad, Options: loc.Options})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := load.TableWith(context.Background(), db, "t", src, load.Options{TimeZone: "Asia/Shanghai"}); err == nil || !strings.Contains(err.Error(), `b.csv:3: column ts: value "yesterday"`) {
		t.Errorf("err = %v, want the value at line 3 named", err)
	}
}

// A text value with an offset declared as a zone-less TIMESTAMP is refused,
// naming file, line and value: DuckDB's cast would drop the offset
// (10:00+08 becoming 10:00, 8 hours off).
func TestDeclaredTimestampRefusesOffset(t *testing.T) {
	p := write(t, t.TempDir(), "a.csv", "", "id,ts\n1,2024-03-01 10:00:00\n2,2024-03-01 10:00:00+08\n")
	_, _, err := loadInto(t, sources.Location{Role: "sink", URI: p, Options: map[string]any{"types": map[string]any{"ts": "TIMESTAMP"}}})
	if err == nil || !strings.Contains(err.Error(), `a.csv:3: column ts: value "2024-03-01 10:00:00+08"`) || !strings.Contains(err.Error(), "declare TIMESTAMPTZ") {
		t.Errorf("err = %v, want the offset at line 3 refused", err)
	}
}

// A column declared TIMESTAMPTZ read with a timestampformat that has no %z
// is wall-clock time in the input's zone, as without a format: 06:30 PM in
// Asia/Shanghai is 10:30 UTC (strptime's own result, taken as UTC, would be
// eight hours late); with %z in the pattern the value's offset rules.
func TestTimestampFormatInZone(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ pattern, data, want string }{
		{"%m/%d/%Y %I:%M %p", "id,ts\n1,03/01/2024 06:30 PM\n", "[1 2024-03-01 10:30:00+00]"},
		{"%m/%d/%Y %I:%M %p %z", "id,ts\n1,03/01/2024 06:30 PM +0100\n", "[1 2024-03-01 17:30:00+00]"},
	} {
		p := write(t, dir, "a.csv", "", tt.data)
		src, err := sources.Open(sources.Location{Role: "sink", URI: p, Options: map[string]any{"timestampformat": tt.pattern, "types": map[string]any{"ts": "TIMESTAMPTZ"}}})
		if err != nil {
			t.Fatal(err)
		}
		db, err := duck.Open(context.Background(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		_, err = load.TableWith(context.Background(), db, "t", src, load.Options{TimeZone: "Asia/Shanghai"})
		src.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, db, "SELECT id, ts::VARCHAR FROM t"); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.pattern, got, tt.want)
		}
		db.Close()
	}
}

// A Parquet input is read in one pass with its provenance: __line the row's
// position in its file, __row its position in read order across files of
// two schemas (an INTEGER id and a BIGINT one, unified to BIGINT) and
// partition folders. A file with a column named file_row_number (the name
// of read_parquet's position column) is read the two-pass way, with the
// same provenance.
func TestParquetProvenance(t *testing.T) {
	for _, extra := range []string{"", ", i AS file_row_number"} {
		dir := t.TempDir()
		db, err := duck.Open(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct{ path, sel string }{
			{"day=1/a.parquet", "SELECT CAST(i AS INTEGER) AS id, i * 10 AS v" + extra + " FROM range(3) t(i)"},
			{"day=2/b.parquet", "SELECT CAST(i + 100 AS BIGINT) AS id, i * 10 AS v" + extra + " FROM range(2) t(i)"},
			{"day=2/c.parquet", "SELECT CAST(i + 200 AS BIGINT) AS id, i * 10 AS v" + extra + " FROM range(2) t(i)"},
		} {
			p := filepath.Join(dir, f.path)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := db.Exec(context.Background(), fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", f.sel, duck.Literal(p))); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		tdb, _, err := loadInto(t, sources.Location{Role: "source", URI: "parquet:" + dir + "/**/*.parquet", BaseDir: dir, Options: map[string]any{"partitions": []any{"day"}}})
		if err != nil {
			t.Fatal(err)
		}
		got := rowsOf(t, tdb, "SELECT id, day, __file, __line, __row FROM t ORDER BY __row")
		want := "[0 1 day=1/a.parquet 1 0] [1 1 day=1/a.parquet 2 1] [2 1 day=1/a.parquet 3 2] " +
			"[100 2 day=2/b.parquet 1 3] [101 2 day=2/b.parquet 2 4] [200 2 day=2/c.parquet 1 5] [201 2 day=2/c.parquet 2 6]"
		if got != want {
			t.Errorf("extra %q:\n got %s\nwant %s", extra, got, want)
		}
		cols, _ := tdb.Columns(context.Background(), "t")
		if cols[0].Type != "BIGINT" {
			t.Errorf("extra %q: id is %s, want BIGINT", extra, cols[0].Type)
		}
		// __file is an ENUM of the file names (one or two bytes a row), read
		// as its text wherever text is wanted.
		if got := rowsOf(t, tdb, "SELECT DISTINCT typeof(__file), typeof(__file || ':' || __line) FROM t"); !strings.HasPrefix(got, "[ENUM(") || !strings.HasSuffix(got, " VARCHAR]") {
			t.Errorf("extra %q: __file and a location are %s, want an ENUM and VARCHAR", extra, got)
		}
	}
}

// A table a Go reader loads (Arrow batches: NDJSON here, as for a database
// or a topic) gets its text __file as an ENUM of its values, as the native
// file readers' tables have it, and reads as the same text; the order of
// the ENUM is the text's (two files of a folder, b before a in no way).
func TestArrowFileEnum(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "b.ndjson", "", "{\"id\": \"2\"}\n{\"id\": \"3\"}\n")
	write(t, dir, "a.ndjson", "", "{\"id\": \"1\"}\n")
	db, _, err := loadInto(t, sources.Location{Role: "source", URI: "ndjson:" + dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, db, "SELECT DISTINCT CAST(typeof(__file) LIKE 'ENUM(%' AS VARCHAR) FROM t"); got != "[true]" {
		t.Errorf("__file is ENUM: %s, want [true]", got)
	}
	a, b := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson")
	want := "[1 " + a + ":1] [2 " + b + ":1] [3 " + b + ":2]"
	if got := rowsOf(t, db, "SELECT id, __file || ':' || __line FROM t ORDER BY __file, __line"); got != want {
		t.Errorf("rows by __file:\n%s\nwant\n%s", got, want)
	}
}

// A file whose own name holds a glob character is read as that one file:
// DuckDB's readers would expand src*.parquet (and a[1].csv) to the other
// files it matches, src_old.parquet (a1.csv), adding their rows under the
// named file's name and its line numbers.
func TestGlobCharacterInFileName(t *testing.T) {
	dir := t.TempDir()
	db, err := duck.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ name, sel string }{
		{"src*.parquet", "SELECT * FROM (VALUES ('A'), ('B')) AS t(id)"},
		{"src_old.parquet", "SELECT 'Z' AS id"},
	} {
		if err := db.Exec(context.Background(), fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet)", f.sel, duck.Literal(filepath.Join(dir, f.name)))); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	write(t, dir, "a[1].csv", "", "id\nA\nB\n")
	write(t, dir, "a1.csv", "", "id\nZ\n")
	for _, uri := range []string{"parquet:" + filepath.Join(dir, "src*.parquet"), filepath.Join(dir, "a[1].csv")} {
		tdb, in, err := loadInto(t, sources.Location{Role: "source", URI: uri, BaseDir: dir})
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		name := filepath.Base(strings.TrimPrefix(uri, "parquet:"))
		want := "[A " + name + ":1] [B " + name + ":2]"
		if strings.HasSuffix(name, ".csv") {
			want = "[A " + name + ":2] [B " + name + ":3]"
		}
		if got := rowsOf(t, tdb, "SELECT id, __file || ':' || __line FROM t ORDER BY __row"); got != want || in.Rows != 2 {
			t.Errorf("%s: %d rows %s, want 2 rows %s", uri, in.Rows, got, want)
		}
	}
}
