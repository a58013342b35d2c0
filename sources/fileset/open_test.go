package fileset_test

import (
	"bytes"
	"compress/gzip"
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
