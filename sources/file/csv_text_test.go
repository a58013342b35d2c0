package file_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources"
)

// goRows reads loc with the kind's own reader (Read, never an engine's):
// each row as name=value pairs ("name=NULL" for NULL) with __line, the rows
// joined by "; ".
func goRows(t *testing.T, loc sources.Location) (string, error) {
	t.Helper()
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, rr, err := src.Read(context.Background())
	if err != nil {
		return "", err
	}
	defer rr.Release()
	var rows []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			var vals []string
			for j, f := range rec.Schema().Fields() {
				switch col := rec.Column(j); {
				case f.Name == sources.FileColumn || f.Name == sources.RowColumn:
				case col.IsNull(i):
					vals = append(vals, f.Name+"=NULL")
				case f.Name == sources.LineColumn:
					vals = append(vals, f.Name+"="+col.ValueStr(i))
				default:
					vals = append(vals, fmt.Sprintf("%s=%q", f.Name, col.ValueStr(i)))
				}
			}
			rows = append(rows, strings.Join(vals, " "))
		}
	}
	return strings.Join(rows, "; "), rr.Err()
}

// engineRows loads loc as the loader does (DuckDB's read_csv for a plain
// UTF-8 CSV file) and returns its rows as goRows does, columns cols.
func engineRows(t *testing.T, loc sources.Location, cols []string) (string, error) {
	t.Helper()
	db, _, err := loadInto(t, loc)
	if err != nil {
		return "", err
	}
	_, rows, err := db.Strings(context.Background(), `SELECT "`+strings.Join(cols, `", "`)+`", __line FROM t ORDER BY __row`)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		var vals []string
		for j, v := range r {
			switch {
			case v == nil && j < len(cols):
				vals = append(vals, cols[j]+"=NULL")
			case j < len(cols):
				vals = append(vals, fmt.Sprintf("%s=%q", cols[j], *v))
			default:
				vals = append(vals, "__line="+*v)
			}
		}
		out = append(out, strings.Join(vals, " "))
	}
	return strings.Join(out, "; "), nil
}

// A UTF-8 byte-order mark is the file's first three bytes, dropped before
// the CSV is parsed, by the Go reader as by DuckDB's read_csv: after it a
// quoted first field is a field (the Go reader said 'bare " in
// non-quoted-field', and named a header column "id" with its quotes) and a
// blank first line is a blank line (the Go reader read a record of one
// field); a file without a mark keeps a U+FEFF that starts its quoted
// first value (the Go reader dropped it). Found by FuzzCSV. A UTF-16 file
// read as utf-16le keeps today's rule: its mark, decoded, is dropped too.
func TestCSVByteOrderMarkOpensTheFile(t *testing.T) {
	idAmount := map[string]any{"columns": []any{"id", "amount"}}
	le16 := func(s string) string {
		var b []byte
		for _, r := range s { // the test's text is in the BMP
			b = append(b, byte(r), byte(r>>8))
		}
		return string(b)
	}
	for _, tt := range []struct {
		name, body string
		opts       map[string]any
		cols       []string
		want       string
	}{
		{"quoted header", "\xef\xbb\xbf\"id\",\"amount\"\n1,5\n", nil, []string{"id", "amount"}, `id="1" amount="5" __line=2`},
		{"quoted first value", "\xef\xbb\xbf\"1\",5\n2,6\n", idAmount, []string{"id", "amount"}, `id="1" amount="5" __line=1; id="2" amount="6" __line=2`},
		{"blank first line", "\xef\xbb\xbf\n\n1,5\n", idAmount, []string{"id", "amount"}, `id="1" amount="5" __line=3`},
		{"one column, blank first line", "\xef\xbb\xbf\n1\n", map[string]any{"columns": []any{"id"}}, []string{"id"}, `id=NULL __line=1; id="1" __line=2`},
		{"no mark, quoted U+FEFF", "\"\xef\xbb\xbfx\",5\n", idAmount, []string{"id", "amount"}, `id="\ufeffx" amount="5" __line=1`},
		{"U+FEFF after a blank line", "\n\xef\xbb\xbfx,5\n", idAmount, []string{"id", "amount"}, `id="\ufeffx" amount="5" __line=2`},
		{"unquoted header", "\xef\xbb\xbfid,amount\n1,5\n", nil, []string{"id", "amount"}, `id="1" amount="5" __line=2`},
		{"utf-16le, quoted header", le16("\ufeff\"id\",\"amount\"\n\"1\",5\n"), map[string]any{"encoding": "utf-16le"}, []string{"id", "amount"}, `id="1" amount="5" __line=2`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a.csv")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			loc := sources.Location{Role: "sink", URI: path, Options: tt.opts}
			if got, err := goRows(t, loc); err != nil || got != tt.want {
				t.Errorf("Go reader: %s (err %v)\nwant        %s", got, err, tt.want)
			}
			if got, err := engineRows(t, loc, tt.cols); err != nil || got != tt.want {
				t.Errorf("loader:    %s (err %v)\nwant       %s", got, err, tt.want)
			}
		})
	}
}

// With a quote character other than ", a value holding " or that quote
// keeps its bytes, so a byte that is not UTF-8 reaches the UTF-8 check, an
// error naming file, line and column: swapQuotes used strings.Map, which
// turned it into U+FFFD and the value passed (found by FuzzCSV).
func TestCSVQuoteSwapKeepsBytes(t *testing.T) {
	for _, tt := range []struct{ name, body, want string }{
		{"a quote character in the value", "id,amount\n1,`0``\xe50`\n", "a.csv:2: column amount: value \"0`\\xe50\" holds bytes that are not UTF-8"},
		{"a double quote in the value", "id,amount\n1,\"0\xe50\n", "a.csv:2: column amount: value \"\\\"0\\xe50\" holds bytes that are not UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a.csv")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			loc := sources.Location{Role: "sink", URI: path, Options: map[string]any{"quote": "`"}}
			if got, err := goRows(t, loc); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Go reader: %s, err %v; want an error with %s", got, err, tt.want)
			}
			if got, err := engineRows(t, loc, []string{"id", "amount"}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("loader: %s, err %v; want an error with %s", got, err, tt.want)
			}
		})
	}
	// Swapped back byte for byte, UTF-8 text with both quotes reads as written.
	path := filepath.Join(t.TempDir(), "a.csv")
	if err := os.WriteFile(path, []byte("id,amount\n1,`é\"``ü`\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loc := sources.Location{Role: "sink", URI: path, Options: map[string]any{"quote": "`"}}
	if got, err := goRows(t, loc); err != nil || got != "id=\"1\" amount=\"é\\\"`ü\" __line=2" {
		t.Errorf("Go reader: %s (err %v), want the value é\"`ü", got, err)
	}
}
