package lock

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/proc"
)

var t0 = time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

// writeHolder writes a lock file as another run would have.
func writeHolder(t *testing.T, path string, h Holder) {
	t.Helper()
	data, _ := json.Marshal(h)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sleeper starts a live process that is not this one, and its owner.
func sleeper(t *testing.T) proc.Owner {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	start, err := proc.StartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return proc.Owner{PID: cmd.Process.Pid, Start: start}
}

func TestContention(t *testing.T) {
	path := Path(filepath.Join(t.TempDir(), "evidence", "ledger", "2026-11-30"), "ledger-nightly")
	if want := "ledger/.ledger-nightly.lock"; !strings.HasSuffix(path, want) {
		t.Fatalf("Path = %s, want …/%s", path, want)
	}
	other := sleeper(t)
	host, _ := os.Hostname()
	writeHolder(t, path, Holder{Control: "ledger-nightly", PID: other.PID, ProcessStart: other.Start, Host: host, StartedAt: "2026-11-30T05:59:00Z"})
	_, _, err := Acquire(path, "ledger-nightly", t0)
	if !errors.Is(err, ErrHeld) || fault.Of(err) != fault.Usage {
		t.Fatalf("err = %v, want ErrHeld (exit 2)", err)
	}
	for _, want := range []string{"pid " + strconv.Itoa(other.PID), "since 2026-11-30T05:59:00Z"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	// The holder's lock is untouched.
	if h, _, err := read(path); err != nil || h.PID != other.PID {
		t.Errorf("lock after the refused run: %+v, %v", h, err)
	}
}

func TestAcquireRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".c.lock")
	l, stale, err := Acquire(path, "c", t0)
	if err != nil || stale != nil {
		t.Fatalf("Acquire = %v, %v", stale, err)
	}
	h, _, err := read(path)
	if err != nil || h.PID != os.Getpid() || h.StartedAt != "2026-11-30T06:00:00Z" || h.ProcessStart == 0 {
		t.Fatalf("lock file = %+v, %v", h, err)
	}
	// A second acquisition while this (live) process holds it is refused.
	if _, _, err := Acquire(path, "c", t0); !errors.Is(err, ErrHeld) {
		t.Errorf("second Acquire = %v, want ErrHeld", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file still there after Release: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// A lock whose process is gone, or whose pid now belongs to another process
// (same pid, another start time), is taken over and reported.
func TestStaleTakeover(t *testing.T) {
	host, _ := os.Hostname()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	me := proc.Self()
	for name, h := range map[string]Holder{
		"process gone": {Control: "c", PID: cmd.Process.Pid, ProcessStart: 1, Host: host, StartedAt: "2026-11-29T06:00:00Z"},
		"pid recycled": {Control: "c", PID: me.PID, ProcessStart: me.Start + 7, Host: host, StartedAt: "2026-11-29T06:00:00Z"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".c.lock")
			writeHolder(t, path, h)
			l, stale, err := Acquire(path, "c", t0)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
			if stale == nil || stale.PID != h.PID || stale.StartedAt != h.StartedAt {
				t.Errorf("stale = %+v, want the old holder %+v", stale, h)
			}
			if got, _, _ := read(path); got.PID != me.PID || got.ProcessStart != me.Start {
				t.Errorf("lock now = %+v, want this process", got)
			}
		})
	}
}

// A lock of another host is never taken for stale; a file that is not a
// lock is refused and left alone.
func TestOtherHostAndForeign(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".c.lock")
	writeHolder(t, path, Holder{Control: "c", PID: 999999, Host: "elsewhere.example", StartedAt: "2026-11-29T06:00:00Z"})
	if _, _, err := Acquire(path, "c", t0); !errors.Is(err, ErrHeld) || !strings.Contains(err.Error(), "elsewhere.example") {
		t.Errorf("other host: %v, want ErrHeld naming the host", err)
	}
	foreign := filepath.Join(dir, ".d.lock")
	os.WriteFile(foreign, []byte("keep me\n"), 0o644)
	if _, _, err := Acquire(foreign, "d", t0); !errors.Is(err, ErrForeign) || fault.Of(err) != fault.Usage {
		t.Errorf("foreign: %v, want ErrForeign", err)
	}
	if b, _ := os.ReadFile(foreign); string(b) != "keep me\n" {
		t.Errorf("foreign file changed: %q", b)
	}
}
