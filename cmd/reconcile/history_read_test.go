package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/history"
)

// An auditor may read a run history without write access to its folder:
// reconcile history takes the history's lock shared, through a lock file
// opened read-only, and when there is no lock file it may make, reads
// without one (DuckDB's own lock on the file refuses a read beside a
// write). Before, every access opened FILE.lock for writing and a reader
// got "permission denied". As root, which ignores permissions, the reader
// is a copy of this test binary run as nobody.
func TestHistoryReadOnlyFolder(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "hist", "history.duckdb")
	code, _, stderr := runCLI(t, "run", "--config", filepath.Join("..", "..", "samples", "ledger", "at-least-once.yaml"),
		"--out", filepath.Join(dir, "evidence"), "--history", hist)
	if code != exitFailed {
		t.Fatalf("run: exit %d, want %d\n%s", code, exitFailed, stderr)
	}
	for _, c := range []struct {
		name     string
		lockFile bool
	}{{"with its lock file", true}, {"without a lock file", false}} {
		t.Run(c.name, func(t *testing.T) {
			if !c.lockFile {
				if err := os.Remove(history.Lockfile(hist)); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(filepath.Dir(hist), 0o555); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(filepath.Dir(hist), 0o755)
			code, out := runReader(t, filepath.Dir(hist), "history", "--history", hist, "--control", "ledger-at-least-once")
			if code != exitOK || !strings.Contains(out, "ledger-at-least-once") || !strings.Contains(out, "FAIL") {
				t.Fatalf("history from a read-only folder: exit %d, want 0 listing the run\n%s", code, out)
			}
			if _, err := os.Stat(history.Lockfile(hist)); c.lockFile != (err == nil) {
				t.Errorf("lock file present after the read: %v, want %v", err == nil, c.lockFile)
			}
		})
	}
}

// runReader runs reconcile with args as a user who may not write the
// test's folders: this process when it is not root, else a copy of the test
// binary run as nobody (uid and gid 65534), with folder (and the folders
// above it) made traversable. It returns the exit code and the output.
func runReader(t *testing.T, folder string, args ...string) (exitCode, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		code, stdout, stderr := runCLI(t, args...)
		return code, stdout + stderr
	}
	bin := filepath.Join(t.TempDir(), "reconcile.test")
	copyExecutable(t, os.Args[0], bin)
	for d := filepath.Dir(bin); d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		traversable(t, d)
	}
	for d := folder; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		traversable(t, d)
	}
	cmd := exec.Command(bin, "-test.run=^TestSubprocessRun$")
	cmd.Dir = "/"
	list, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "RECONCILE_SUBPROCESS_ARGS="+string(list))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return exitCode(ee.ExitCode()), out.String()
	} else if errors.Is(err, fs.ErrPermission) {
		// no CAP_SETUID (a user namespace) or a temporary folder
		// mounted noexec: no other user to read as here
		t.Skipf("cannot run the reader as nobody: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	return exitOK, out.String()
}

// traversable adds execute (search) permission for others to folder d,
// restored when the test ends.
func traversable(t *testing.T, d string) {
	t.Helper()
	info, err := os.Stat(d)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm()&0o001 != 0 {
		return
	}
	if err := os.Chmod(d, info.Mode().Perm()|0o005); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(d, info.Mode().Perm()) })
}

// copyExecutable copies the file from to to, executable by everyone.
func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
