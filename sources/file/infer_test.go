package file_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// A folder (or a glob without an extension) given without a kind is read as
// the kind its files' extensions name when they all carry one — after .gz
// or .zst and in any letter case, as a file's own extension is read, and
// only among the files a file kind would read (commit markers, checksums
// and hidden files do not count) — and a .tsv folder keeps the tab a .tsv
// file is read with. It used to be refused with `unknown kind ""`.
func TestFolderKindFromExtensions(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"parquet/_SUCCESS": "", "parquet/.part-0.parquet.crc": "crc",
		"csv/day=1/a.csv": "id,amount\n1,1.00\n", "csv/.b.csv.inprogress.x": "id,amount\n9,9\n",
		"tsv/a.tsv": "id\tamount\n1\t1.00\n2\t2.00\n",
	} {
		writeTo(t, filepath.Join(dir, name), []byte(body))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("id,amount\n2,2.00\n"))
	zw.Close()
	writeTo(t, filepath.Join(dir, "csv", "b.CSV.gz"), gz.Bytes())
	pq, err := os.ReadFile(writeParquet(t, t.TempDir()).URI)
	if err != nil {
		t.Fatal(err)
	}
	writeTo(t, filepath.Join(dir, "parquet", "part-a.parquet"), pq)
	writeTo(t, filepath.Join(dir, "parquet", "part-b.pq"), pq) // an alias is another extension: refused below
	fixture := int64(len(sourcetest.Fixture().Rows))
	for _, tt := range []struct {
		uri, kind     string
		rows, columns int64
	}{
		{"parquet/part-*", "parquet", 2 * fixture, int64(len(sourcetest.Fixture().Columns))},
		{"csv", "csv", 2, 2},
		{"csv/*", "csv", 2, 2},
		{"tsv/", "csv", 2, 2}, // two columns: read with a tab, as a.tsv would be
	} {
		if tt.uri == "parquet/part-*" {
			os.Rename(filepath.Join(dir, "parquet", "part-b.pq"), filepath.Join(dir, "parquet", "part-b.parquet"))
		}
		_, in, err := loadInto(t, sources.Location{Role: "sink", URI: tt.uri, BaseDir: dir})
		if err != nil {
			t.Errorf("%s: %v", tt.uri, err)
			continue
		}
		if in.Kind != tt.kind || in.Rows != tt.rows || int64(len(in.Columns)) != tt.columns {
			t.Errorf("%s: kind %s, %d rows, columns %v; want %s, %d rows, %d columns", tt.uri, in.Kind, in.Rows, in.Columns, tt.kind, tt.rows, tt.columns)
		}
	}
}

func writeTo(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Files that disagree are never read as one of them: the error names each
// extension found, with a file of it, and the prefixes that would read the
// folder; files without an extension, or of one no kind reads, say so.
func TestFolderKindRefused(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"mixed/a.csv", "mixed/b.parquet", "mixed/c.csv.zst", "json/a.jsonl", "json/b.ndjson",
		"flink/part-0-0", "flink/part-0-1", "sheets/a.xlsx"} {
		writeTo(t, filepath.Join(dir, name), []byte("x\n"))
	}
	for _, tt := range []struct{ uri, want string }{
		{"mixed", `sink "mixed": sources: unknown kind "" (known kinds: ` + strings.Join(sources.Kinds(), ", ") + `; a kind is taken from the kind: option, a scheme, a kind: prefix or the file extension); mixed is a folder whose files' extensions disagree: .csv (2 files, such as a.csv), .parquet (1 file, such as b.parquet): give the kind to read them as with a prefix (csv:mixed, parquet:mixed) or kind: in the spec`},
		{"json", "json is a folder whose files' extensions disagree: .jsonl (1 file, such as a.jsonl), .ndjson (1 file, such as b.ndjson): give the kind to read them as with a prefix (ndjson:json) or kind: in the spec"},
		{"flink", "flink is a folder whose files have no extension (2 files, such as part-0-0), which names no file kind: give its kind with a prefix (csv:flink, "}, // then every file kind registered
		{"flink", "parquet:flink) or kind: in the spec"},
		{"flink/part-*", "the glob flink/part-* whose files have no extension (2 files, such as part-0-0)"},
	} {
		_, err := sources.Open(sources.Location{Role: "sink", URI: tt.uri, BaseDir: dir})
		if !errors.Is(err, sources.ErrUnknownKind) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant ErrUnknownKind saying %q", tt.uri, err, tt.want)
		}
	}
	// A folder named like a file of an unknown kind is a folder all the same.
	if err := os.Rename(filepath.Join(dir, "sheets"), filepath.Join(dir, "sheets.d")); err != nil {
		t.Fatal(err)
	}
	_, err := sources.Open(sources.Location{Role: "sink", URI: "sheets.d", BaseDir: dir})
	if want := "sheets.d is a folder whose files have .xlsx (1 file, such as a.xlsx), which names no file kind"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("sheets.d: %v, want %q", err, want)
	}
	// A kind given is never replaced by a guess, even for a folder of CSV.
	_, err = sources.Open(sources.Location{Role: "sink", URI: "mixed", BaseDir: dir, Options: map[string]any{"kind": "xlsx"}})
	if err == nil || strings.Contains(err.Error(), "folder") {
		t.Errorf("kind: xlsx: %v, want unknown kind without a guess", err)
	}
}
