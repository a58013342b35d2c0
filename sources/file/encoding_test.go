package file_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/sources"
)

// readAll reads a CSV file of the given bytes with options and returns its
// name column's values, or the error that ended the read.
func readCSV(t *testing.T, data []byte, opts map[string]any) ([]string, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.csv"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := sources.Open(sources.Location{Role: "sink", URI: "in.csv", Options: opts, BaseDir: dir})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	_, rr, err := src.Read(context.Background())
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	var out []string
	for rr.Next() {
		col := rr.RecordBatch().Column(1).(*array.String)
		for i := range col.Len() {
			out = append(out, col.Value(i))
		}
	}
	return out, rr.Err()
}

// Each declared encoding is decoded to UTF-8; what it does not define, a
// UTF-16 file without its byte-order mark, and bytes that are not UTF-8
// under the default are errors naming file, line and the option.
func TestCSVEncoding(t *testing.T) {
	utf16le := func(s string) []byte {
		var b []byte
		for _, r := range s { // the test's text is in the BMP
			b = append(b, byte(r), byte(r>>8))
		}
		return b
	}
	text := "id,name\n1,Café\n2,Crème\n"
	for _, tt := range []struct {
		name string
		data []byte
		enc  string
		want string // the names joined, or an error's text
		fail bool
	}{
		{"latin-1", []byte("id,name\n1,Caf\xe9\n2,Cr\xe8me\n"), "latin-1", "Café|Crème", false},
		{"windows-1252 euro", []byte("id,name\n1,\x80 5\n2,x\n"), "windows-1252", "€ 5|x", false},
		{"windows-1252 undefined byte", []byte("id,name\n1,a\n2,b\x81\n"), "windows-1252", "in.csv:3: column name", true},
		{"utf-16 with BOM", append([]byte{0xff, 0xfe}, utf16le(text)...), "utf-16", "Café|Crème", false},
		{"utf-16 without BOM", utf16le(text), "utf-16", "declare encoding: utf-16le or utf-16be", true},
		{"utf-16le", utf16le(text), "utf-16le", "Café|Crème", false},
		{"not UTF-8 under the default", []byte("id,name\n1,Caf\xe9\n"), "", "declare encoding: latin-1", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := map[string]any{}
			if tt.enc != "" {
				opts["encoding"] = tt.enc
			}
			if tt.name == "not UTF-8 under the default" {
				opts["columns"] = []any{"id", "name"} // the Go reader, as for a cut file
				tt.data = []byte(strings.TrimPrefix(string(tt.data), "id,name\n"))
				tt.want = "in.csv:1: column name"
			}
			got, err := readCSV(t, tt.data, opts)
			if tt.fail {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v, want one with %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := strings.Join(got, "|"); g != tt.want {
				t.Errorf("names %q, want %q", g, tt.want)
			}
		})
	}
	if _, err := readCSV(t, []byte(text), map[string]any{"encoding": "ebcdic"}); err == nil || !strings.Contains(err.Error(), "latin-1, windows-1252") {
		t.Errorf("an unknown encoding: err = %v", err)
	}
}
