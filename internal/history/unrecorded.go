package history

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// A run publishes its evidence folder, then records itself in the history
// (Record): two steps, and a run stopped between them (SIGKILL, the OOM
// killer, a cron timeout) or whose Record fails leaves evidence that the
// history does not hold. The next run of the control would then classify
// its exceptions against the run before, without a word. So a run marks
// itself as publishing (MarkPublishing) before it publishes; the next run
// finds the marks left behind (FindUnrecorded), says so in its evidence,
// and once it is recorded itself clears its own mark and the marks it
// reported (ClearPublishing) — a run that fails after finding them leaves
// them for the next.
//
// A mark is a file beside the history, one per run:
// <dir of history>/.<history file name>.publishing-<control>-<run id>,
// the control as the first 16 hex digits of its name's SHA-256 (a name
// may hold any character), holding a Publishing's JSON.

// Publishing is what the mark of a run that is publishing holds.
type Publishing struct {
	// RunID is the run (evidence.Run.ID), Control its control.
	RunID   string `json:"run_id"`
	Control string `json:"control"`
	// Evidence is the evidence folder the run publishes, absolute.
	Evidence string `json:"evidence"`
	// StartedAt is the run's start, RFC 3339, UTC.
	StartedAt string `json:"started_at"`
}

// DamagedMark is a mark that cannot be read (cut short when its run was
// stopped while writing it, say): the file and why.
type DamagedMark struct {
	File   string
	Reason string
}

// markPrefix is the name of control's marks in history file path, but for
// the run id.
func markPrefix(path, control string) string {
	h := sha256.Sum256([]byte(control))
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".publishing-"+hex.EncodeToString(h[:8])+"-")
}

// MarkPublishing writes the mark of run p in history file path, synced to
// the disk. Errors: the file cannot be written.
func MarkPublishing(path string, p Publishing) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(markPrefix(path, p.Control)+p.RunID, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(append(data, '\n'))
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("history: mark run %s as publishing: %w", p.RunID, err)
	}
	return nil
}

// ClearPublishing removes the marks of control's runs runIDs and the
// damaged marks files in history file path (one already gone is no
// error).
func ClearPublishing(path, control string, runIDs []string, files []string) error {
	var errs []error
	for _, id := range runIDs {
		files = append(files, markPrefix(path, control)+id)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("history: clear a publishing mark of %s: %w", control, err))
		}
	}
	return errors.Join(errs...)
}

// FindUnrecorded returns, in run id order, the runs of control that left
// their marks in history file path and whose evidence folders are
// published — each holds summary.json of that run — but that the history
// does not hold (recorded reports whether it holds a run id): they were
// stopped, or their recording failed, after they published. A mark whose
// run did not publish (stopped before, or its folder gone or published
// again by another run) or that the history holds (stopped after it was
// recorded) tells nothing: it is removed. A mark that cannot be read is
// returned as damaged, left for the caller to report and clear. Errors:
// the folder of the history cannot be listed.
func FindUnrecorded(path, control string, recorded func(runID string) bool) ([]Publishing, []DamagedMark, error) {
	prefix := markPrefix(path, control)
	entries, err := os.ReadDir(filepath.Dir(prefix))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	var found []Publishing
	var damaged []DamagedMark
	for _, e := range entries { // sorted by name: by run id
		mark := filepath.Join(filepath.Dir(prefix), e.Name())
		if !strings.HasPrefix(mark, prefix) || !e.Type().IsRegular() {
			continue
		}
		var p Publishing
		data, err := os.ReadFile(mark)
		if err == nil {
			err = json.Unmarshal(data, &p)
		}
		if err == nil && (p.Control != control || prefix+p.RunID != mark) {
			err = fmt.Errorf("it names run %s of control %q", p.RunID, p.Control)
		}
		if err != nil {
			damaged = append(damaged, DamagedMark{mark, err.Error()})
			continue
		}
		published := false
		if b, err := os.ReadFile(filepath.Join(p.Evidence, evidence.SummaryFile)); err == nil {
			var s evidence.Summary
			published = json.Unmarshal(b, &s) == nil && s.Run.ID == p.RunID
		}
		if !published || recorded(p.RunID) {
			if err := os.Remove(mark); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, nil, fmt.Errorf("history: %w", err)
			}
			continue
		}
		found = append(found, p)
	}
	return found, damaged, nil
}
