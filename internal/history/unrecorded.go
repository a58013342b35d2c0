package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/proc"
)

// A run publishes its evidence folder, then records itself in the history
// (Record): two steps, and a run stopped between them (SIGKILL, the OOM
// killer, a cron timeout) or whose Record fails leaves evidence that the
// history does not hold. The next run of the control would then classify
// its exceptions against the run before, without a word. So a run marks
// itself as publishing (MarkPublishing) before it publishes, and clears
// the mark once it is recorded (ClearPublishing); the next run finds a
// mark left behind (FindUnrecorded) and says so in its evidence.
//
// The mark is a file beside the history, one per control:
// <dir of history>/.<history file name>.<control>.publishing, holding an
// Publishing's JSON. The control's lock (package lock) keeps two runs of
// one control from marking at once.

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

// publishingPath is the mark of control's runs in history file path.
func publishingPath(path, control string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"."+control+".publishing")
}

// MarkPublishing writes the mark of run p in history file path (written
// beside and renamed into place, so a mark is whole or absent). Errors:
// the file cannot be written.
func MarkPublishing(path string, p Publishing) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	final := publishingPath(path, p.Control)
	tmp := final + ".new-" + proc.Self().Tag()
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("history: mark run %s as publishing: %w", p.RunID, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("history: mark run %s as publishing: %w", p.RunID, err)
	}
	return nil
}

// ClearPublishing removes the mark of control's runs in history file path
// (none is no error).
func ClearPublishing(path, control string) error {
	if err := os.Remove(publishingPath(path, control)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("history: clear the publishing mark of %s: %w", control, err)
	}
	return nil
}

// FindUnrecorded returns the run of control that left its mark in history
// file path and whose evidence folder is published — it holds
// summary.json of that run — but that the history does not hold
// (recorded reports whether it holds a run id): it was
// stopped, or its recording failed, after it published. A mark whose run
// did not publish (stopped before, or its folder gone) names no evidence
// to speak of: it is removed and nil returned, as when there is no mark or
// the history holds the run (recorded, then stopped before clearing).
// Errors: a mark that cannot be read or is not JSON.
func FindUnrecorded(path, control string, recorded func(runID string) bool) (*Publishing, error) {
	mark := publishingPath(path, control)
	data, err := os.ReadFile(mark)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var p Publishing
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%w: %s is not a publishing mark: %w", ErrHistory, mark, err)
	}
	published := false
	if b, err := os.ReadFile(filepath.Join(p.Evidence, evidence.SummaryFile)); err == nil {
		var s evidence.Summary
		published = json.Unmarshal(b, &s) == nil && s.Run.ID == p.RunID
	}
	if !published || recorded(p.RunID) {
		return nil, ClearPublishing(path, control)
	}
	return &p, nil
}
