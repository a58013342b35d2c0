package file_test

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"

	_ "github.com/reconcile-dev/reconcile/sources/file" // the kinds under test
)

func writeCSV(t *testing.T, dir string) sources.Location {
	t.Helper()
	path := filepath.Join(dir, "fixture.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write(sourcetest.Fixture().Columns)
	for _, r := range sourcetest.Fixture().Rows {
		rec := make([]string, len(r))
		for i, v := range r {
			if v != nil {
				rec[i] = *v
			}
		}
		w.Write(rec)
	}
	w.Flush()
	f.Close()
	return sources.Location{Role: "source", URI: path}
}

func writeNDJSON(t *testing.T, dir string) sources.Location {
	t.Helper()
	var b strings.Builder
	for _, r := range sourcetest.Fixture().Rows {
		parts := make([]string, len(r))
		for i, v := range r {
			val := "null"
			if v != nil {
				q, _ := json.Marshal(*v)
				val = string(q)
				if i == 2 { // amounts as JSON numbers: must stay exact
					val = *v
				}
			}
			parts[i] = fmt.Sprintf("%q: %s", sourcetest.Fixture().Columns[i], val)
		}
		b.WriteString("{" + strings.Join(parts, ", ") + "}\n")
	}
	path := filepath.Join(dir, "fixture.ndjson")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return sources.Location{Role: "source", URI: path}
}

func writeParquet(t *testing.T, dir string) sources.Location {
	t.Helper()
	csvLoc := writeCSV(t, dir)
	path := filepath.Join(dir, "fixture.parquet")
	db, err := duck.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := fmt.Sprintf("COPY (SELECT * FROM read_csv(%s, all_varchar = true)) TO %s (FORMAT parquet)", duck.Literal(csvLoc.URI), duck.Literal(path))
	if err := db.Exec(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	return sources.Location{Role: "source", URI: path}
}

func TestCSVConformance(t *testing.T) {
	sourcetest.Run(t, writeCSV)
	sourcetest.RunCompressed(t, writeCSV)
}

func TestNDJSONConformance(t *testing.T) {
	sourcetest.Run(t, writeNDJSON)
	sourcetest.RunCompressed(t, writeNDJSON)
}

func TestParquetConformance(t *testing.T) { sourcetest.Run(t, writeParquet) }

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

// A glob skips a stream sink's hidden and "_"-prefixed part files, reads the
// rest in name order and reports what it skipped.
func TestGlobSkipsInProgressParts(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"part-0.csv": "id\n1\n", "part-1.csv": "id\n2\n",
		".part-2.csv.inprogress.csv": "id\n3\n", "_part-3_tmp.csv": "id\n4\n",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	db, in, err := loadInto(t, sources.Location{Role: "sink", URI: "*.csv", BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if in.Rows != 2 || len(in.Files) != 2 || len(in.Ignored) != 2 {
		t.Fatalf("rows %d files %v ignored %v; want 2 rows from 2 files, 2 ignored", in.Rows, in.Files, in.Ignored)
	}
	if err := in.Hashed(); err != nil {
		t.Fatal(err)
	}
	if in.Files[0].Path != "part-0.csv" || len(in.Files[0].SHA256) != 64 || in.Files[0].SHA256 != sha256Of(t, filepath.Join(dir, "part-0.csv")) {
		t.Errorf("file %+v: want a path relative to the base folder and a SHA-256", in.Files[0])
	}
	_, rows, _ := db.Strings(context.Background(), "SELECT __file, __line FROM t ORDER BY __row")
	if *rows[1][0] != "part-1.csv" || *rows[1][1] != "2" {
		t.Errorf("provenance of the second row = %s:%s, want part-1.csv:2", *rows[1][0], *rows[1][1])
	}
}

// Files of one input must share a header; a different one is named.
func TestCSVHeadersMustAgree(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte("id,amount\n1,2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.csv"), []byte("amount,id\n2,1\n"), 0o644)
	_, _, err := loadInto(t, sources.Location{Role: "sink", URI: "*.csv", BaseDir: dir})
	if err == nil || !strings.Contains(err.Error(), "b.csv") || !strings.Contains(err.Error(), "same columns") {
		t.Fatalf("err = %v, want one naming b.csv and its header", err)
	}
}

// NDJSON numbers keep their literal text: DuckDB's read_json would turn
// 12345678901234567.89 into a DOUBLE and 2.50 into 2.5. A nested value is
// its compact JSON text (the kafka kind's: no white space between tokens).
func TestNDJSONNumbersStayExact(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.ndjson"), []byte(`{"id": 1, "amount": 12345678901234567.89}
{"id": "007", "amount": 2.50, "extra": {"k": [1, 2]}}

{"id": 3, "amount": null, "flag": true}
`), 0o644)
	db, in, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.ndjson")})
	if err != nil {
		t.Fatal(err)
	}
	if in.Rows != 3 {
		t.Fatalf("rows %d, want 3", in.Rows)
	}
	_, rows, err := db.Strings(context.Background(), `SELECT id, amount, extra, flag, __line FROM t ORDER BY __row`)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(deref(rows[0]), deref(rows[1]), deref(rows[2]))
	want := "[1 12345678901234567.89 NULL NULL 1] [007 2.50 {\"k\":[1,2]} NULL 2] [3 NULL NULL true 4]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestNDJSONErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.ndjson"), []byte("{\"id\": 1}\n{\"id\": 2\n"), 0o644)
	_, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.ndjson")})
	if err == nil || !strings.Contains(err.Error(), "a.ndjson:2") {
		t.Fatalf("err = %v, want one naming a.ndjson:2", err)
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

// A glob such as dir/*/*.csv must not read a job's staging folders either.
func TestGlobSkipsStagingFolders(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"out/a/part-0.csv": "id\n1\n", "out/.tmp/part-1.csv": "id\n2\n", "out/_temporary/part-2.csv": "id\n3\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	_, in, err := loadInto(t, sources.Location{Role: "sink", URI: "out/*/*.csv", BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if in.Rows != 1 || len(in.Ignored) != 2 {
		t.Errorf("rows %d, ignored %v; want 1 row and both staging files ignored", in.Rows, in.Ignored)
	}
}

func TestNDJSONDuplicateKeyAndBOM(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "dup.ndjson"), []byte("{\"id\": \"A\"}\n{\"id\": \"A\", \"id\": \"B\"}\n"), 0o644)
	_, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "dup.ndjson")})
	if err == nil || !strings.Contains(err.Error(), "dup.ndjson:2: key \"id\" appears twice") {
		t.Errorf("err = %v, want the duplicate key on line 2 named", err)
	}
	os.WriteFile(filepath.Join(dir, "bom.ndjson"), []byte("\xef\xbb\xbf{\"id\": \"A\"}\n"), 0o644)
	if _, in, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "bom.ndjson")}); err != nil || in.Rows != 1 {
		t.Errorf("a byte-order mark: err %v, want 1 row", err)
	}
}

// A Parquet file compresses its pages itself: a compressed one is refused,
// naming the file, by both ways of reading.
func TestParquetCompressedRefused(t *testing.T) {
	dir := t.TempDir()
	loc := writeParquet(t, dir)
	os.Rename(loc.URI, loc.URI+".gz")
	loc.URI += ".gz"
	_, _, err := loadInto(t, loc)
	if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "fixture.parquet.gz") {
		t.Errorf("loader: err = %v, want ErrInvalidLocation naming the file", err)
	}
	src, _ := sources.Open(loc)
	if _, _, err := src.Read(context.Background()); !errors.Is(err, sources.ErrInvalidLocation) {
		t.Errorf("Read: err = %v, want ErrInvalidLocation", err)
	}
}

// fixin: NDJSON keys differing only in case are a usage error (exit 2), as
// a CSV header's are, naming file, line and both keys.
func TestNDJSONCaseOnlyKeys(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cc.ndjson")
	if err := os.WriteFile(p, []byte("{\"id\":\"1\",\"amount\":\"1\",\"AMOUNT\":\"2\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := sources.Open(sources.Location{URI: p, Role: "sink"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, rr, err := src.Read(context.Background())
	if err == nil {
		rr.Release()
	}
	if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), `cc.ndjson:1: key "AMOUNT" differs only in case from "amount"`) {
		t.Fatalf("err = %v, want ErrInvalidLocation naming file, line and both keys", err)
	}
}

// sha256Of is the SHA-256 of the file at path, lower-case hex, as
// sha256sum prints it.
func sha256Of(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// NDJSON that is not Unicode text is refused, naming file, line, column
// and the byte or escape: encoding/json turned each into U+FFFD, so the ids
// A\xff and A\xfe matched, as did \ud800 and \udc00, and a Latin-1 café
// equalled a CSV value caf\ufffd (found by a tester). A whole surrogate pair
// is its character; an escaped backslash before "ud800" is that text.
func TestNDJSONNotUnicodeRefused(t *testing.T) {
	tests := []struct{ name, line, want string }{
		{"raw byte", "{\"id\":\"A\xff\",\"amount\":10}", `a.ndjson:2:9: byte 0xFF is not UTF-8`},
		{"latin-1", "{\"id\":\"1\",\"status\":\"caf\xe9\"}", `a.ndjson:2:24: byte 0xE9 is not UTF-8`},
		{"in a key", "{\"\xfeid\":\"1\"}", `a.ndjson:2:3: byte 0xFE is not UTF-8`},
		{"high alone", `{"id":"A\ud800","amount":10}`, `a.ndjson:2:9: the escape \ud800 is half of a UTF-16 surrogate pair`},
		{"low alone", `{"id":"A\udc00","amount":10}`, `a.ndjson:2:9: the escape \udc00 is half of a UTF-16 surrogate pair`},
		{"high, then no low", `{"id":"\uD800\u0041"}`, `a.ndjson:2:8: the escape \uD800 is half`},
		{"nested", `{"id":"1","x":{"y":["\udfff"]}}`, `a.ndjson:2:22: the escape \udfff is half`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "a.ndjson"), []byte("{\"id\":\"0\"}\n"+tt.line+"\n"), 0o644)
			_, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "a.ndjson")})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok.ndjson"), []byte(`{"id":"\ud83d\ude00 \\ud800 caf\u00e9 café"}`+"\n"), 0o644)
	db, _, err := loadInto(t, sources.Location{Role: "sink", URI: filepath.Join(dir, "ok.ndjson")})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := db.Strings(context.Background(), `SELECT id FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := deref(rows[0])[0], `😀 \ud800 café café`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A nested object or array is one column holding its compact JSON text
// (jsontext.AppendText), the text the kafka and kcat kinds give for the
// same values (sources/kafka's TestKafkaNestedText: the same values and
// texts, less the kafka kind's a.b columns): white space and escapes are
// spellings, key order and numbers are kept; a key given twice in one
// object at any depth, inside an array too, is an error naming file, line
// and key.
func TestNDJSONNestedText(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "v.ndjson")
	os.WriteFile(p, []byte(`{"id":"1","meta":{"b": 1}}
{"id":"2","tags": [ "x", {"k" : "v"} ]}
{"id":"3","meta":{ "a": 1.50, "c": "\u00e9t\u00e9", "p": "a\/b" }}
{"id":"4","meta":{"note":"tab\u0009here","q":"\"","e":"\ud83d\ude00"}}
{"id":"5","meta":{"b":2,"a":1e2}}
`), 0o644)
	db, _, err := loadInto(t, sources.Location{Role: "sink", URI: p})
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := db.Strings(context.Background(), `SELECT id, coalesce(meta, tags) FROM t ORDER BY __row`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(deref(r), " "))
	}
	want := []string{
		`1 {"b":1}`,
		`2 ["x",{"k":"v"}]`,
		`3 {"a":1.50,"c":"été","p":"a/b"}`,
		`4 {"note":"tab\there","q":"\"","e":"😀"}`,
		`5 {"b":2,"a":1e2}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, v := range []string{`{"id":"7","m":{"x":{"a":1,"a":2}}}`, `{"id":"8","l":[{"a":1},{"a":1,"\u0061":2}]}`} {
		p := filepath.Join(dir, fmt.Sprintf("dup%d.ndjson", i))
		os.WriteFile(p, []byte(`{"id":"0"}`+"\n"+v+"\n"), 0o644)
		_, _, err := loadInto(t, sources.Location{Role: "sink", URI: p})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf(`dup%d.ndjson:2: key`, i)) || !strings.Contains(err.Error(), `key "a" appears twice in one object`) {
			t.Errorf("%s: err = %v, want file, line and key named", v, err)
		}
	}
}
