package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockWait is how long an access waits for another run to release the
// history file.
var lockWait = 2 * time.Minute

// locked runs fn holding the exclusive advisory lock on path + ".lock"
// (flock(2) LOCK_EX, released when fn returns or the process dies), waiting
// up to lockWait for another access to release it. It makes the lock file
// (and the folder) when missing: an access that writes the history.
func locked(ctx context.Context, path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	return holding(ctx, f, path, syscall.LOCK_EX, fn)
}

// readLocked runs fn, which only reads the history file path, holding the
// shared advisory lock on path + ".lock" (flock(2) LOCK_SH): reads go side
// by side and wait only for a write. The lock file is opened read-only, so
// a reader needs no write access to the history's folder (an auditor
// listing the runs of a folder they may only read). When the lock file
// cannot be read, or is missing and cannot be made (fs.ErrPermission, a
// read-only file system), fn runs without it: DuckDB's own lock on the
// history file (a read-only attach takes a shared fcntl(2) lock, a writer
// an exclusive one) then refuses a read beside a write, with an error,
// instead of waiting for it.
func readLocked(ctx context.Context, path string, fn func() error) error {
	f, err := os.Open(path + ".lock")
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	}
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fn()
	}
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	return holding(ctx, f, path, syscall.LOCK_SH, fn)
}

// holding runs fn holding flock(2) how (LOCK_EX or LOCK_SH) on f, the lock
// file of history path, trying every 50 ms for up to lockWait.
func holding(ctx context.Context, f *os.File, path string, how int, fn func() error) error {
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("history: lock %s.lock: %w", path, err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("history: %s is in use by another run for more than %s (lock %s.lock)", path, lockWait, path)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}

// Lockfile is the advisory lock file of history file path.
func Lockfile(path string) string { return path + ".lock" }
