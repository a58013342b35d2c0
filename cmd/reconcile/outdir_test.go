package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An --out whose folder cannot be written is refused (exit 3) naming the
// evidence folder and where it could not be created, with the system's
// reason, not the lock file's temporary name. Root ignores permissions, so
// the read-only case is skipped as root; the not-a-directory case is not.
func TestOutNotWritable(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "s.csv"), "id\n1\n")
	sink := writeFile(t, filepath.Join(dir, "k.csv"), "id\n1\n")
	file := writeFile(t, filepath.Join(dir, "afile"), "")
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, parent, reason string
	}{
		{"read-only folder", ro, "permission denied"},
		{"not a directory", file, "not a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.parent == ro && os.Geteuid() == 0 {
				t.Skip("running as root, which may write a read-only folder")
			}
			code, _, stderr := runCLI(t, "run", "--source", src, "--sink", sink, "--id", "id", "--out", filepath.Join(c.parent, "ev"))
			if code != exitRuntime {
				t.Fatalf("exit %d, want %d\n%s", code, exitRuntime, stderr)
			}
			if want := "cannot create the evidence folder ev in " + c.parent + ": " + c.reason; !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
			if strings.Contains(stderr, ".lock.new-") {
				t.Errorf("stderr names the lock's temporary file:\n%s", stderr)
			}
		})
	}
}
