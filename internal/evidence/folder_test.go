package evidence

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
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

// Commit flushes every file and folder of the evidence folder to disk
// before it renames the folder into place, and the parent's entry after:
// a folder that survives a crash at its target holds its files whole.
func TestCommitFlushes(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "ev")
	f, err := NewFolder(target, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{SummaryFile, ExceptionsFile("missing_ids"), QueryFile("missing_ids")} {
		if err := f.WriteFile(rel, []byte("x\n")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := WriteManifest(context.Background(), f.Dir(), testSummary(), nil); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var flushed []string
	old := fsync
	fsync = func(fh *os.File) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := os.Stat(target)
		flushed = append(flushed, fmt.Sprintf("%s published=%t", fh.Name(), err == nil))
		return old(fh)
	}
	defer func() { fsync = old }()
	staging := f.Dir()
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	var want []string
	filepath.WalkDir(target, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, filepath.Join(staging, strings.TrimPrefix(p, target))+" published=false")
		return nil
	})
	want = append(want, parent+" published=true")
	if len(flushed) != len(want) || flushed[len(flushed)-1] != want[len(want)-1] {
		t.Fatalf("flushed:\n%s\nwant (the parent last):\n%s", strings.Join(flushed, "\n"), strings.Join(want, "\n"))
	}
	slices.Sort(flushed)
	slices.Sort(want)
	if !slices.Equal(flushed, want) {
		t.Errorf("flushed:\n%s\nwant:\n%s", strings.Join(flushed, "\n"), strings.Join(want, "\n"))
	}

	// A flush that fails publishes nothing.
	fsync = func(fh *os.File) error { return syscall.EIO }
	g, err := NewFolder(filepath.Join(parent, "failed"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.WriteFile(SummaryFile, []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if err := g.Commit(); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "flush its files to disk") {
		t.Errorf("Commit with a failing flush: %v, want EIO", err)
	}
	if _, err := os.Stat(filepath.Join(parent, "failed")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("published despite the failed flush: %v", err)
	}
}
