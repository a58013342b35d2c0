package evidence

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFolder: a folder is written under a hidden staging name and appears
// at its target only at Commit; --force replaces only an unchanged
// evidence folder holding nothing reconcile did not write.
func TestFolder(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "ev")
	publish := func(replace bool) error {
		t.Helper()
		f, err := NewFolder(target, replace)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(filepath.Base(f.Dir()), ".ev.incomplete-") {
			t.Errorf("staging folder %s", f.Dir())
		}
		if _, err := os.Stat(target); replace == false && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("target exists before Commit: %v", err)
		}
		for _, rel := range []string{SummaryFile, ExceptionsFile("missing_ids"), QueryFile("missing_ids")} {
			if err := f.WriteFile(rel, []byte("x\n")); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := WriteManifest(context.Background(), f.Dir(), testSummary(), nil); err != nil {
			t.Fatal(err)
		}
		return f.Commit()
	}
	if err := publish(false); err != nil {
		t.Fatal(err)
	}
	if err := publish(false); !errors.Is(err, ErrExists) {
		t.Errorf("second run without --force: %v", err)
	}
	if err := publish(true); err != nil {
		t.Errorf("--force over an unchanged evidence folder: %v", err)
	}

	// An edited or annotated folder is the auditor's: refused.
	os.WriteFile(filepath.Join(target, "notes.txt"), []byte("mine"), 0o644)
	if err := publish(true); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "changed after reconcile wrote it") {
		t.Errorf("--force over an annotated folder: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "notes.txt")); string(b) != "mine" {
		t.Error("the auditor's file is gone")
	}

	// A data folder is never replaced.
	data := filepath.Join(parent, "data")
	os.Mkdir(data, 0o755)
	os.WriteFile(filepath.Join(data, "source.csv"), []byte("id\n"), 0o644)
	if _, err := NewFolder(data, true); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "not an evidence folder") {
		t.Errorf("--force over a data folder: %v", err)
	}

	// Abort leaves nothing, and no staging folder is left behind.
	f, err := NewFolder(filepath.Join(parent, "aborted"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if strings.Contains(e.Name(), "incomplete") || e.Name() == "aborted" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
