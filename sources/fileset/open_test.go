package fileset_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

func TestCompressionOf(t *testing.T) {
	for name, want := range map[string]sources.Compression{
		"a.csv": sources.NoCompression, "a.csv.gz": sources.Gzip, "A.CSV.GZ": sources.Gzip,
		"a.ndjson.zst": sources.Zstd, "a.zst.csv": sources.NoCompression, "gz": sources.NoCompression,
	} {
		if got := fileset.CompressionOf(name); got != want {
			t.Errorf("CompressionOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// Open decompresses by extension; a file that is not what its name
// says, or a compressed stream cut short, is an error naming the file.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("id,amount\n1,2.50\n", 1000)
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(text))
	gw.Close()
	zw, _ := zstd.NewWriter(&zs)
	zw.Write([]byte(text))
	zw.Close()
	files := map[string][]byte{
		"plain.csv": []byte(text), "a.csv.gz": gz.Bytes(), "a.csv.zst": zs.Bytes(),
		"cut.csv.gz": gz.Bytes()[:gz.Len()/2], "cut.csv.zst": zs.Bytes()[:zs.Len()/2],
		"fake.csv.gz": []byte(text), "fake.csv.zst": []byte(text),
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	for _, name := range []string{"plain.csv", "a.csv.gz", "a.csv.zst"} {
		rc, err := fileset.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(got) != text {
			t.Errorf("%s: %d bytes, err %v; want the text", name, len(got), err)
		}
	}
	for _, name := range []string{"cut.csv.gz", "cut.csv.zst", "fake.csv.gz", "fake.csv.zst"} {
		rc, err := fileset.Open(filepath.Join(dir, name))
		if err == nil {
			_, err = io.ReadAll(rc)
			rc.Close()
		}
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want an error naming the file", name, err)
		}
	}
}

// Bytes after the last member of a gzip file that do not start another
// member (gzip -d's "trailing garbage") are reported as such, with where
// the last member ends, not as a truncated file; another member is read
// on, and one cut short is a truncated file.
func TestOpenGzipTrailingBytes(t *testing.T) {
	dir := t.TempDir()
	text := "id,amount\n1,2.50\n"
	var gz bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write([]byte(text))
	gw.Close()
	member := gz.Bytes()
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	end := fmt.Sprintf("ends at byte %d", len(member))
	for _, c := range []struct {
		name      string
		data      []byte
		want, not string // "" want: read without error, the text twice
	}{
		{"marker.csv.gz", cat(member, []byte("END\n")), "4 bytes follow the last gzip member", "truncated file)"},
		{"zeros.csv.gz", cat(member, make([]byte, 16)), "16 bytes follow the last gzip member", "invalid header"},
		{"one.csv.gz", cat(member, []byte("\n")), "1 byte follows the last gzip member", "truncated file)"},
		{"two.csv.gz", cat(member, member), "", ""},
		{"cut-header.csv.gz", cat(member, member[:5]), "ends early (a truncated file)", "follow the last"},
		{"cut-body.csv.gz", cat(member, member[:len(member)-4]), "ends early (a truncated file)", "follow the last"},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		rc, err := fileset.Open(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if c.want == "" {
			if err != nil || string(got) != text+text {
				t.Errorf("%s: %q, %v; want the text twice", c.name, got, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.name) || strings.Contains(err.Error(), c.not) {
			t.Errorf("%s: err = %v; want %q and the file's name, not %q", c.name, err, c.want, c.not)
		}
		if strings.Contains(c.want, "follow") && !strings.Contains(err.Error(), end) {
			t.Errorf("%s: err = %v; want %q", c.name, err, end)
		}
	}
}
