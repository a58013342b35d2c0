package sources_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources"

	_ "github.com/reconcile-dev/reconcile/sources/all" // the tests open inputs of every kind
)

func TestKindOf(t *testing.T) {
	tests := []struct{ uri, kind string }{
		{"a/b.csv", "csv"}, {"a/b.CSV.gz", "csv"}, {"x.parquet", "parquet"}, {"x.jsonl", "jsonl"},
		{"csv:exports/part-*", "csv"}, {"postgres://u@h/db?table=t", "postgres"}, {"mariadb://u@h/db?table=t", "mariadb"},
	}
	for _, tt := range tests {
		if k, _ := sources.KindOf(sources.Location{URI: tt.uri}); k != tt.kind {
			t.Errorf("KindOf(%q) = %q, want %q", tt.uri, k, tt.kind)
		}
	}
	_, err := sources.Open(sources.Location{Role: "sink", URI: "x.xlsx"})
	if err == nil || !strings.Contains(err.Error(), "known kinds: "+strings.Join(sources.Kinds(), ", ")) || !strings.Contains(err.Error(), "csv, ") {
		t.Errorf("err = %v, want the known kinds listed", err)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://u:s3cret@h:5432/db?table=t", "postgres://u:xxxxx@h:5432/db?table=t"},
		{"host=h password=s3cret user=u", "host=h password=xxxxx user=u"},
		{"postgres://h/db?password=s3cret&table=t", "postgres://h/db?password=xxxxx&table=t"},
		{"samples/a.csv", "samples/a.csv"},
	}
	for _, tt := range tests {
		if got := sources.Redact(tt.in); got != tt.want || strings.Contains(got, "s3cret") {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// fixin: the unknown-option error lists every key the input's long form
// takes, rename and time_zone (spec.Input keys, read before the kind) too.
func TestUnknownOptionListsInputKeys(t *testing.T) {
	for _, uri := range []string{"x.csv", "x.ndjson", "postgres://h/db?table=a"} {
		_, err := sources.Open(sources.Location{URI: uri, Options: map[string]any{"colour": "red"}})
		if err == nil {
			t.Fatalf("%s: no error", uri)
		}
		for _, k := range []string{"rename", "time_zone"} {
			if !strings.Contains(err.Error(), ", "+k) {
				t.Errorf("%s: %q does not list %s", uri, err, k)
			}
		}
	}
}

// A location with no kind says what its path is: a folder whose kind its
// files do not tell (here: it has none), or nothing at all (an on-call
// engineer's mistyped sink folder used to read only "unknown kind """).
// The folders whose files do tell are in sources/file's
// TestFolderKindFromExtensions.
func TestNoKindSaysWhatThePathIs(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ uri, want string }{
		{"nosuch/", "there is no file or folder nosuch/"},
		{"out", "out is a folder whose kind cannot be told from its files (sources: no files match out: it matches no file): give its kind with a prefix (csv:out, iceberg:out, kcat:out, ndjson:out, parquet:out) or kind: in the spec"},
	} {
		_, err := sources.Open(sources.Location{Role: "sink", URI: c.uri, BaseDir: dir})
		if !errors.Is(err, sources.ErrUnknownKind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q): %v, want ErrUnknownKind saying %q", c.uri, err, c.want)
		}
	}
	// A kind given by extension is opened as before, the path not looked at.
	if _, err := sources.Open(sources.Location{Role: "sink", URI: "nosuch.csv", BaseDir: dir}); err != nil {
		t.Errorf("Open(nosuch.csv): %v (the opener does no I/O)", err)
	}
}
