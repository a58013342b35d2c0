package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A history file that does not exist yet is fine to check (the first run
// creates it) but not to list.
func TestAbsentFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.duckdb")
	if err := Check(ctx, path); err != nil {
		t.Errorf("Check of a file not yet made: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check created the file: %v", err)
	}
	if _, err := List(ctx, path, ""); !errors.Is(err, os.ErrNotExist) || !errors.Is(err, ErrHistory) {
		t.Errorf("List of a file not yet made: %v", err)
	}
	if _, err := os.Stat(Lockfile(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check or List of a file not yet made left its lock file: %v", err)
	}
	// in a folder not yet made: not made either
	deep := filepath.Join(t.TempDir(), "nightly", "history.duckdb")
	if _, err := List(ctx, deep, ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("List of a file in a folder not yet made: %v", err)
	}
	if err := Check(ctx, deep); err != nil {
		t.Errorf("Check of a file in a folder not yet made: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(deep)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Check or List made the folder of a history not yet made: %v", err)
	}
}

// A file that is not a history is refused, by Check and by List, and left
// as it is: no lock file is made beside it.
func TestNotAHistoryLeftAlone(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "notes.csv")
	if err := os.WriteFile(path, []byte("id,amount\n1,2.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(ctx, path); !errors.Is(err, ErrHistory) || !strings.Contains(err.Error(), "not a DuckDB database") {
		t.Errorf("Check: %v, want ErrHistory: not a DuckDB database", err)
	}
	if _, err := List(ctx, path, ""); !errors.Is(err, ErrHistory) {
		t.Errorf("List: %v, want ErrHistory", err)
	}
	if _, err := os.Stat(Lockfile(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a lock file was made beside a file that is not a history: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "id,amount\n1,2.00\n" {
		t.Errorf("the file was changed: %q", b)
	}
}

// Accesses take turns on FILE.lock: a second one waits for the first, and
// gives up with a clear error after lockWait.
func TestLockedTakesTurns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.duckdb")
	held, release := make(chan struct{}), make(chan struct{})
	go locked(ctx, path, func() error {
		close(held)
		<-release
		return nil
	})
	<-held
	old := lockWait
	lockWait = 200 * time.Millisecond
	defer func() { lockWait = old }()
	err := locked(ctx, path, func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "in use by another run") {
		t.Fatalf("while held: %v, want a timeout naming the lock", err)
	}
	lockWait = 10 * time.Second
	done := make(chan error)
	go func() { done <- locked(ctx, path, func() error { return nil }) }()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("second access ran while the first held the lock: %v", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("after release: %v", err)
	}
}

// Reads share the lock and wait only for a write: a read runs while another
// read holds it, a write waits for the read, and a read waits for a write.
func TestReadLockedShares(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "history.duckdb")
	old := lockWait
	lockWait = 200 * time.Millisecond
	defer func() { lockWait = old }()
	hold := func(lock func(context.Context, string, func() error) error) (release func()) {
		t.Helper()
		held, rel := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- lock(ctx, path, func() error {
				close(held)
				<-rel
				return nil
			})
		}()
		select {
		case <-held:
		case err := <-done:
			t.Fatalf("taking the lock to hold: %v", err)
		}
		return func() { close(rel); <-done }
	}
	nothing := func() error { return nil }

	release := hold(readLocked)
	if err := readLocked(ctx, path, nothing); err != nil {
		t.Errorf("a read beside a read: %v", err)
	}
	if err := locked(ctx, path, nothing); err == nil || !strings.Contains(err.Error(), "in use by another run") {
		t.Errorf("a write beside a read: %v, want a timeout naming the lock", err)
	}
	release()

	release = hold(locked)
	if err := readLocked(ctx, path, nothing); err == nil || !strings.Contains(err.Error(), "in use by another run") {
		t.Errorf("a read beside a write: %v, want a timeout naming the lock", err)
	}
	release()
	if err := readLocked(ctx, path, nothing); err != nil {
		t.Errorf("a read after the write: %v", err)
	}
}
