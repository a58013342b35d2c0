package control

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/history"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
)

// runHistory is a run's part in its control's run history (spec
// history:): the classification of its exceptions against the previous
// run, which goes into the evidence, and the recording of the run once
// the evidence is published. A nil *runHistory (no history:) does nothing.
type runHistory struct {
	path string
	c    *history.Classification
}

// openHistory checks the history file of s before any input is read (nil
// without history:).
func openHistory(ctx context.Context, s *spec.Spec) (*runHistory, error) {
	if s.History == "" {
		return nil, nil
	}
	if err := history.Check(ctx, s.History); err != nil {
		return nil, err
	}
	return &runHistory{path: s.History}, nil
}

// classify classifies every outcome's exceptions (run: the control, run id,
// start, parameters and comparison of this run) and points the outcome at
// its table with the lifecycle columns appended (evidence.LifecycleColumns),
// so the exceptions CSVs carry them.
func (h *runHistory) classify(ctx context.Context, db *duck.DB, run history.Run, outs []*checks.Outcome) error {
	if h == nil {
		return nil
	}
	var tables []history.Table
	for _, o := range outs {
		t := history.Table{Check: o.ID, Status: o.Status, Table: o.Table, Requires: o.Requires, Tolerance: o.ToleranceKey}
		if run.Parameters != nil && (slices.Contains(o.Requires, string(checks.NeedCompare)) || slices.Contains(o.Requires, string(checks.NeedNormalize))) {
			t.MatchedIDs = run.Parameters.ID // it looks at matched records only
		}
		for _, col := range o.Columns {
			t.Columns = append(t.Columns, evidence.Column{Name: col.Name, Type: col.Type, Role: col.Role, Measure: col.Measure})
		}
		tables = append(tables, t)
	}
	c, err := history.Classify(ctx, db, h.path, run, tables)
	if err != nil {
		return err
	}
	h.c = c
	for _, o := range outs {
		ch := c.Checks[o.ID]
		if ch == nil {
			continue
		}
		o.Table = ch.Table
		for _, col := range ch.Columns {
			o.Columns = append(o.Columns, checks.Column{Name: col.Name, Type: col.Type})
		}
	}
	return nil
}

// writeResolved writes each check's resolved keys (evidence.ResolvedFileOf).
func (h *runHistory) writeResolved(ctx context.Context, db *duck.DB, folder *evidence.Folder) error {
	if h == nil {
		return nil
	}
	for _, ch := range h.c.Checks {
		if ch.Resolved == "" {
			continue
		}
		file := ch.Since.ResolvedFile
		if err := os.MkdirAll(folder.Path(evidence.ResolvedDir), 0o755); err != nil {
			return err
		}
		n, err := db.ExecCountFile(ctx, evidenceSQL, queries.EvidenceExceptionsCSV, struct{ Table, Path string }{ch.Resolved, folder.Path(file)})
		if err != nil {
			return fmt.Errorf("write %s: %w", file, err)
		}
		if n != ch.Since.Resolved {
			return fmt.Errorf("write %s: %d rows written, but %d keys were resolved", file, n, ch.Since.Resolved)
		}
	}
	return nil
}

// summarize puts the classification into the summary: each check's
// since_last_run, the history with the previous and recent runs (this one
// last), and a WARNING note for a run this one repeats the parameters of
// and for each run of the control found published but not recorded (out
// is this run's evidence folder).
func (h *runHistory) summarize(res *evidence.Summary, out string) {
	if h == nil {
		return
	}
	this := evidence.HistoryRun{ID: res.Run.ID, StartedAt: res.Run.StartedAt, Status: res.Status, Params: res.Parameters.Params, Exceptions: map[string]int64{}}
	for _, c := range res.Checks {
		if c.Status == evidence.Skipped {
			continue
		}
		this.Exceptions[c.ID] = c.Exceptions
		if ch := h.c.Checks[c.ID]; ch != nil {
			since := ch.Since
			c.SinceLastRun = &since
		}
	}
	res.History = &evidence.History{File: h.c.File, PreviousRun: h.c.Previous, Runs: append(append([]evidence.HistoryRun{}, h.c.Trend...), this)}
	if r := h.c.Repeats; r != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("WARNING: run %s of this control had the same parameters (%s) and later runs followed it: this run repeats an earlier period, and its exceptions are classified against the last run recorded, %s (%s), not against the run before that period; the next run is classified against this one", r.ID, paramsText(r.Params), h.c.Previous.ID, paramsText(h.c.Previous.Params)))
	}
	prev := "nothing: every exception is new"
	if h.c.Previous != nil {
		prev = "the run before, " + h.c.Previous.ID
	}
	here, _ := filepath.Abs(out)
	for _, u := range h.c.Unrecorded {
		replaced := ""
		if u.Evidence == here {
			replaced = ", which this run replaces"
		}
		res.Notes = append(res.Notes, fmt.Sprintf("WARNING: run %s of this control (started %s) published its evidence (%s%s) but is not in the history %s: it was stopped, or its recording failed, between the two; this run's exceptions are classified against %s", u.RunID, u.StartedAt, u.Evidence, replaced, h.c.File, prev))
	}
	if len(h.c.Incomplete) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("WARNING: the history %s holds only part of the exceptions the previous run (%s) recorded for %s (it was damaged, by a run stopped while it was recorded?): those checks are not compared with that run, and every exception of theirs is new", h.c.File, h.c.Previous.ID, strings.Join(h.c.Incomplete, ", ")))
	}
	for _, d := range h.c.Damaged {
		res.Notes = append(res.Notes, fmt.Sprintf("WARNING: the publishing mark %s cannot be read (%s): a run of this control may have published evidence the history does not hold (it is removed once this run is recorded)", d.File, d.Reason))
	}
}

// markPublishing marks the run as publishing its evidence folder out in
// the history (history.MarkPublishing), before it does: a run stopped
// before it is recorded is then found by the next.
func (h *runHistory) markPublishing(res *evidence.Summary, out string) error {
	if h == nil {
		return nil
	}
	dir, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	return history.MarkPublishing(h.c.File, history.Publishing{RunID: res.Run.ID, Control: res.Control.Name, Evidence: dir, StartedAt: res.Run.StartedAt})
}

// record appends the published run to the history. The evidence folder
// is in place by then; an error says so.
func (h *runHistory) record(ctx context.Context, db *duck.DB, res *evidence.Summary, out string) error {
	if h == nil {
		return nil
	}
	dir, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	manifest, err := os.ReadFile(filepath.Join(dir, evidence.ManifestFile))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(manifest)
	if err := history.Record(ctx, db, h.c, res, dir, hex.EncodeToString(sum[:])); err != nil {
		return fmt.Errorf("the evidence folder %s is published, but the run is not in the history (the next run will say so): %w", dir, err)
	}
	// recorded: neither this run nor those it found unrecorded (and said
	// so) need a word now
	ids := []string{res.Run.ID}
	for _, u := range h.c.Unrecorded {
		ids = append(ids, u.RunID)
	}
	var files []string
	for _, d := range h.c.Damaged {
		files = append(files, d.File)
	}
	return history.ClearPublishing(h.c.File, res.Control.Name, ids, files)
}

// paramsText is a run's parameters as name=value, sorted by name.
func paramsText(params map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(params)) {
		kv = append(kv, k+"="+params[k])
	}
	return strings.Join(kv, " ")
}
