// Package lock keeps two runs of one control from overlapping: a lock file
// (JSON, see Holder) that a run creates atomically before it reads
// anything and removes when it exits. A second run finds it and stops with
// ErrHeld naming the holder's pid and start time. A lock whose process is
// gone (killed with SIGKILL, the machine rebooted) is stale: the next run
// takes it over and says so. Liveness is the pid plus the process start
// time (package proc), so a recycled pid is not taken for the holder.
package lock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/proc"
)

// ErrHeld: another run of the control holds its lock (a usage error, exit 2:
// the run was started while the other one is going).
var ErrHeld = fault.Usage.New("lock: another run of the control is in progress")

// ErrForeign: the lock path holds a file that is not a reconcile lock; it is
// never removed or overwritten (exit 2).
var ErrForeign = fault.Usage.New("lock: not a reconcile lock file")

// Holder is the content of a lock file.
type Holder struct {
	// Control is the control's name.
	Control string `json:"control"`
	// PID and ProcessStart identify the process (proc.Owner: its start in
	// clock ticks after boot, 0 when unknown).
	PID          int    `json:"pid"`
	ProcessStart uint64 `json:"process_start"`
	// Host is the machine it runs on; a lock of another host is never
	// taken for stale (its process cannot be looked up from here).
	Host string `json:"host"`
	// StartedAt is when the run took the lock, UTC, RFC 3339.
	StartedAt string `json:"started_at"`
}

func (h *Holder) owner() proc.Owner { return proc.Owner{PID: h.PID, Start: h.ProcessStart} }

// Lock is a lock file this process holds.
type Lock struct {
	path string
	me   Holder
}

// Path is the lock file of a control whose evidence folder is out: beside
// it, in the same folder, named after the control: <dir of out>/.<control>.lock.
func Path(out, control string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(out)), "."+control+".lock")
}

// Acquire takes the lock file path for control. When another live run holds
// it, the error wraps ErrHeld and names its pid, host and start time. When
// the holder is gone, the lock is taken over and stale describes the run
// that left it (nil otherwise). now is the clock for StartedAt.
func Acquire(path, control string, now time.Time) (l *Lock, stale *Holder, err error) {
	me := proc.Self()
	host, _ := os.Hostname()
	h := Holder{Control: control, PID: me.PID, ProcessStart: me.Start, Host: host, StartedAt: now.UTC().Format(time.RFC3339)}
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	data = append(data, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("lock: %w", err)
	}
	for range 5 {
		created, err := create(path, data)
		if err != nil {
			return nil, nil, err
		}
		if created {
			return &Lock{path: path, me: h}, stale, nil
		}
		other, raw, err := read(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // released meanwhile: try again
		}
		if err != nil {
			return nil, nil, err
		}
		if other.Host != host || other.owner().Alive() {
			return nil, nil, fmt.Errorf("%w: %s is held by pid %d on %s, running control %s since %s; wait for it to finish (remove %s only if that process is not reconcile)",
				ErrHeld, path, other.PID, other.Host, other.Control, other.StartedAt, path)
		}
		// Stale: move it aside (one rename, so of two runs taking it over
		// at once only one succeeds), and check that what was moved is the
		// lock judged stale, not a new one taken meanwhile.
		aside := fmt.Sprintf("%s.stale-%s", path, me.Tag())
		if err := os.Rename(path, aside); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return nil, nil, fmt.Errorf("lock: take over %s: %w", path, err)
		}
		moved, _ := os.ReadFile(aside)
		if !bytes.Equal(moved, raw) {
			os.Link(aside, path) // put the other run's lock back
			os.Remove(aside)
			continue
		}
		os.Remove(aside)
		stale = other
	}
	return nil, nil, fmt.Errorf("%w: %s keeps changing; another run is taking it", ErrHeld, path)
}

// create makes path with data in one step (a complete file or none: the
// data is written to a temporary file first and linked into place, which
// fails if path exists). It reports false when path exists.
func create(path string, data []byte) (bool, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".new-")
	if err != nil {
		return false, fmt.Errorf("lock: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, fmt.Errorf("lock: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return false, fmt.Errorf("lock: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("lock: %w", err)
	}
	return true, nil
}

// read returns the holder recorded in path and the file's bytes.
func read(path string) (*Holder, []byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	h := &Holder{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(h); err != nil || h.PID <= 0 || h.StartedAt == "" {
		return nil, nil, fmt.Errorf("%w: %s (it is left as it is; remove it if no reconcile is running)", ErrForeign, path)
	}
	return h, raw, nil
}

// Release removes the lock file if this process still holds it.
func (l *Lock) Release() error {
	h, _, err := read(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if h.PID != l.me.PID || h.ProcessStart != l.me.ProcessStart {
		return nil // not ours any more
	}
	return os.Remove(l.path)
}

// Describe says who held a lock, for the message about a stale one.
func (h *Holder) Describe() string {
	return fmt.Sprintf("pid %d on %s, control %s, started %s", h.PID, h.Host, h.Control, h.StartedAt)
}
