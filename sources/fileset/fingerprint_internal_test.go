package fileset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/sources"
)

// The files of an input are hashed in the background: Input.Hashed gives
// each file's SHA-256 of its bytes, one after another in order; a file that
// held other bytes when hashed than when listed is refused (ErrChanged), and
// a cancelled run gives the context's error.
func TestFingerprintInBackground(t *testing.T) {
	dir := t.TempDir()
	var paths, want []string
	for i, body := range []string{"a,b\n1,2\n", strings.Repeat("x", 1<<20), ""} {
		p := filepath.Join(dir, string(rune('a'+i))+".csv")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(body))
		paths, want = append(paths, p), append(want, hex.EncodeToString(sum[:]))
	}
	files, _, err := startFingerprints(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	in := &sources.Input{Files: files}
	if err := in.Hashed(); err != nil {
		t.Fatal(err)
	}
	for i, f := range in.Files {
		if f.SHA256 != want[i] || f.Bytes != [3]int64{8, 1 << 20, 0}[i] {
			t.Errorf("file %d: %d bytes, SHA-256 %s; want %s", i, f.Bytes, f.SHA256, want[i])
		}
	}

	// Listed at 8 bytes, hashed at 9.
	done := make(chan struct{})
	close(done)
	grown := &sources.Input{Files: []sources.File{{Path: "a.csv", Bytes: 8}}}
	grown.Files[0].Track(&fileState{hash: &hashing{done: done, sum: want[0], bytes: 9}})
	if err := grown.Hashed(); !errors.Is(err, sources.ErrChanged) || grown.Files[0].SHA256 != "" || !strings.Contains(err.Error(), "a.csv was 8 bytes when listed, 9 bytes when hashed") {
		t.Errorf("err = %v, SHA-256 %q; want ErrChanged and no SHA-256", err, grown.Files[0].SHA256)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	files, _, err = startFingerprints(ctx, paths)
	if err == nil {
		err = (&sources.Input{Files: files}).Hashed()
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// An input of more files than the process may hold open is hashed: no file
// is held open between its listing and its hash.
func TestFingerprintManyFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 300 {
		p := filepath.Join(dir, fmt.Sprintf("part-%03d.csv", i))
		if err := os.WriteFile(p, []byte(fmt.Sprintf("id\n%d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Skip("no descriptor limit to lower:", err)
	}
	low := old
	low.Cur = 128
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip("cannot lower the descriptor limit:", err)
	}
	files, _, err := startFingerprints(context.Background(), paths)
	in := &sources.Input{Files: files}
	if err == nil {
		err = in.Hashed()
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("300 files under a limit of 128 descriptors: %v", err)
	}
	for i, f := range in.Files {
		if sum := sha256.Sum256([]byte(fmt.Sprintf("id\n%d\n", i))); f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("file %d: SHA-256 %s", i, f.SHA256)
		}
	}
}

// A file rewritten in place after it was fingerprinted (same inode, same
// size, its modification time set back as touch -d does) is changed: its
// inode change time moved. Found by a tester: identity, size and
// modification time all passed, and the evidence could carry the SHA-256 of
// bytes other than those the run read.
func TestUnchangedRewrittenInPlace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "part-0")
	if err := os.WriteFile(p, []byte("id,amount\n1,10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	files, states, err := startFingerprints(context.Background(), []string{p})
	if err == nil {
		err = (&sources.Input{Files: files}).Hashed()
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := changeTime(states[0].info); !ok {
		t.Skip("this system's stat gives no inode change time")
	}
	if err := files[0].Unchanged(); err != nil {
		t.Fatalf("untouched: %v", err)
	}
	// the kernel stamps the change time from a coarse clock (a few
	// milliseconds): let it tick, as a rewrite during a real run would
	time.Sleep(50 * time.Millisecond)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("9"), int64(len("id,amount\n1,"))); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	now, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := changeTime(states[0].info)
	if after, _ := changeTime(now); after.Equal(before) {
		t.Skip("this file system's change time did not move in 50 ms (a coarse clock): nothing to tell the rewrite by here")
	}
	if !os.SameFile(states[0].info, now) || now.Size() != files[0].Bytes || !now.ModTime().Equal(mtime) {
		t.Fatalf("the rewrite changed identity, size or modification time (%v, %d bytes); the case tests nothing", now.ModTime(), now.Size())
	}
	err = files[0].Unchanged()
	if !errors.Is(err, sources.ErrChanged) || !strings.Contains(err.Error(), p+" was changed in place") {
		t.Errorf("rewritten in place: err = %v, want ErrChanged naming the file", err)
	}
}
