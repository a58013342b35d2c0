package history

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/queries"
)

// Run identifies the run being classified.
type Run struct {
	Control   string
	ID        string
	StartedAt time.Time
	// Parameters and Comparison are the run's summary.json parts of the
	// same names, from which each check's scope is taken
	// (evidence.CheckScope); Comparison is nil for a windowed sink.
	Parameters *evidence.Parameters
	Comparison *evidence.Comparison
}

// Table is one check's exception table in the session.
type Table struct {
	Check  string
	Status evidence.Status
	// Table is the session table of every exception row.
	Table string
	// Columns are its columns with their roles (the key is made of those
	// whose role is one of evidence.KeyRoles).
	Columns []evidence.Column
	// Requires and Tolerance are the check's "-- requires:" and
	// "-- tolerance:" keys (package checks): what its scope is made of
	// (evidence.CheckScope).
	Requires  []string
	Tolerance string
	// MatchedIDs are the id columns of a check that looks only at ids in
	// both inputs (a comparison of matched records): a key of the previous
	// run is resolved only when its id is in both now. nil otherwise.
	MatchedIDs []string
}

// Classification is what Classify found, for the evidence and for Record.
type Classification struct {
	// File is the history file, absolute.
	File string
	// Run is the run classified.
	Run Run
	// Previous is the previous run of the control (nil: none); Trend the
	// control's runs before this one, at most evidence.TrendRuns-1, oldest
	// first.
	Previous *evidence.HistoryRun
	Trend    []evidence.HistoryRun
	// Checks are the classified checks, by check id.
	Checks map[string]*Checked
	// Unrecorded are the runs of the control that published their
	// evidence but are not in the history (FindUnrecorded), in run id
	// order: Previous is the run before them. Damaged are publishing marks
	// that cannot be read. The run clears both once it is recorded.
	Unrecorded []Publishing
	Damaged    []DamagedMark
	// Incomplete are the checks whose keys of the previous run the history
	// holds only in part (damaged), so they are not compared with it.
	Incomplete []string
	// Repeats is the latest run before Previous with this run's parameters
	// (a period run again after later ones: a backfill), which this run is
	// not classified against; nil when there is none or the run has no
	// parameters. Only its ID and StartedAt are set.
	Repeats *evidence.HistoryRun
}

// Checked is one check's exceptions, classified.
type Checked struct {
	// Table is the session table of the exception rows with the lifecycle
	// columns (evidence.LifecycleColumns) appended; Columns are those
	// appended, with their DuckDB types.
	Table   string
	Columns []evidence.Column
	// Keys is the session table of the check's keys (see keys.sql).
	Keys string
	// Since is the comparison with the previous run.
	Since evidence.SinceLastRun
	// Resolved is the session table of the keys resolved ("" when none),
	// laid out as evidence.ResolvedFileOf says.
	Resolved string
}

// Classify classifies the exceptions of every table against the previous
// run of run.Control in the history file path (which need not exist yet):
// it makes, in the session db, each check's keys, its exception rows with
// the lifecycle columns, and its resolved keys. A check whose own columns
// are named like a lifecycle column is refused (the CSV would be
// ambiguous).
func Classify(ctx context.Context, db *duck.DB, path string, run Run, checks []Table) (*Classification, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c := &Classification{File: abs, Run: run, Checks: map[string]*Checked{}}
	var prevSeq int64
	CheckRecords := map[string]CheckRecord{}
	var prevSummary *evidence.Summary
	err = readLocked(ctx, abs, func() error {
		exists, err := sniff(abs)
		if err != nil {
			return err
		}
		if !exists {
			if c.Unrecorded, c.Damaged, err = FindUnrecorded(abs, run.Control, func(string) bool { return false }); err != nil {
				return err
			}
			return db.ExecFile(ctx, statements(), queries.HistoryNoPrevious, nil)
		}
		detach, err := attach(ctx, db, abs, true)
		if err != nil {
			return err
		}
		defer detach()
		recent, err := recentRuns(ctx, db, run.Control, evidence.TrendRuns-1)
		if err != nil {
			return err
		}
		c.Trend = make([]evidence.HistoryRun, len(recent))
		for i, r := range recent {
			c.Trend[i] = r.HistoryRun
		}
		var recErr error
		c.Unrecorded, c.Damaged, err = FindUnrecorded(abs, run.Control, func(id string) bool {
			n, err := db.CountFile(ctx, statements(), queries.HistoryRunRecorded, struct{ DB, RunID string }{dbName, id})
			recErr = cmp.Or(recErr, err)
			return n > 0
		})
		if err = cmp.Or(err, recErr); err != nil {
			return err
		}
		if len(recent) == 0 {
			return db.ExecFile(ctx, statements(), queries.HistoryNoPrevious, nil)
		}
		last := recent[len(recent)-1]
		prevSeq = last.Seq
		c.Previous = &c.Trend[len(c.Trend)-1]
		if run.Parameters != nil && len(run.Parameters.Params) > 0 && !maps.Equal(last.Params, run.Parameters.Params) {
			params, err := json.Marshal(run.Parameters.Params) // as Record writes them
			if err != nil {
				return err
			}
			_, r, err := db.StringsFile(ctx, statements(), queries.HistoryRepeatedParams, struct {
				DB, Control, Params string
				Seq                 int64
			}{dbName, run.Control, string(params), last.Seq})
			if err != nil {
				return err
			}
			if len(r) == 1 {
				c.Repeats = &evidence.HistoryRun{ID: *r[0][0], StartedAt: *r[0][1], Params: run.Parameters.Params}
			}
		}
		for _, pc := range last.Checks {
			CheckRecords[pc.ID] = pc
		}
		if prevSummary, err = runSummary(ctx, db, prevSeq); err != nil {
			return err
		}
		return db.ExecFile(ctx, statements(), queries.HistoryPreviousExceptions, struct {
			DB  string
			Seq int64
		}{dbName, prevSeq})
	})
	if err != nil {
		return nil, err
	}
	for _, t := range checks {
		if t.Table == "" || t.Status == evidence.Skipped {
			continue
		}
		for _, col := range t.Columns {
			if slices.Contains(evidence.LifecycleColumns, col.Name) {
				return nil, fmt.Errorf("%w: check %s has a column named %s, the name of a column the run history adds; rename it in the check's SQL", ErrHistory, t.Check, col.Name)
			}
		}
		ch, err := classify(ctx, db, c, t, CheckRecords, prevSummary)
		if err != nil {
			return nil, fmt.Errorf("history: classify %s: %w", t.Check, err)
		}
		c.Checks[t.Check] = ch
	}
	return c, nil
}

// classify makes the keys, classified rows and resolved keys of one check:
// whether it can be compared with the previous run (compareWithPrevious),
// its rows with the lifecycle columns (classifyRows), and, when compared,
// the previous run's keys it no longer finds (resolve).
func classify(ctx context.Context, db *duck.DB, c *Classification, t Table, prev map[string]CheckRecord, prevSummary *evidence.Summary) (*Checked, error) {
	keyCols := evidence.KeyColumns(t.Columns)
	ch := &Checked{Table: "history_classified__" + t.Check, Keys: "history_keys__" + t.Check}
	ch.Since = evidence.SinceLastRun{KeyColumns: keyCols}
	var scopeChange string
	if prevSummary != nil && prevSummary.Parameters != nil && c.Run.Parameters != nil {
		scopeChange = evidence.ScopeChange(
			evidence.CheckScope(prevSummary.Parameters, prevSummary.Comparison, t.Requires, t.Tolerance),
			evidence.CheckScope(c.Run.Parameters, c.Run.Comparison, t.Requires, t.Tolerance))
	}
	if err := compareWithPrevious(ctx, db, c, t, ch, prev); err != nil {
		return nil, err
	}
	if err := classifyRows(ctx, db, c, t, ch); err != nil {
		return nil, err
	}
	if !ch.Since.Compared {
		return ch, nil
	}
	if err := resolve(ctx, db, c, t, ch, scopeChange); err != nil {
		return nil, err
	}
	return ch, nil
}

// compareWithPrevious decides whether check t can be compared with the
// previous run (ch.Since.Compared), and otherwise says why every exception
// is new (ch.Since.Note): there is no previous run, it did not run the
// check, it keyed it by other columns, or the history holds only part of
// its keys (then t.Check is added to c.Incomplete).
func compareWithPrevious(ctx context.Context, db *duck.DB, c *Classification, t Table, ch *Checked, prev map[string]CheckRecord) error {
	keyCols := ch.Since.KeyColumns
	pc, ran := prev[t.Check]
	switch {
	case c.Previous == nil:
		ch.Since.Note = "the control's first run in this history: every exception is new"
	case !ran || pc.Status == evidence.Skipped:
		ch.Since.Note = "the previous run (" + c.Previous.ID + ") did not run this check: every exception is new"
	case !slices.Equal(pc.KeyColumns, keyCols):
		ch.Since.Note = fmt.Sprintf("the previous run (%s) keyed this check by %s, this one by %s: every exception is new", c.Previous.ID, evidence.KeyColumnsText(pc.KeyColumns), evidence.KeyColumnsText(keyCols))
	default:
		held, err := db.CountFile(ctx, statements(), queries.HistoryPreviousKeys, struct{ Check string }{t.Check})
		if err != nil {
			return err
		}
		if recorded := pc.New + pc.Recurring; held != recorded {
			// The history lost part of that run's keys (a run stopped
			// while its recording was made durable): a key missing from it
			// would be called new, and one of this run missing there
			// resolved.
			ch.Since.Note = fmt.Sprintf("the history holds %d of the %d exception keys the previous run (%s) recorded for this check: it cannot be compared with that run (the history was damaged, by a run stopped while it was recorded?): every exception is new", held, recorded, c.Previous.ID)
			c.Incomplete = append(c.Incomplete, t.Check)
			return nil
		}
		ch.Since.Compared = true
	}
	return nil
}

// classifyRows makes the check's keys (keys.sql) and its exception rows
// with the lifecycle columns (classified.sql) in the session, sets
// ch.Columns to the columns added, and counts the new and recurring keys.
func classifyRows(ctx context.Context, db *duck.DB, c *Classification, t Table, ch *Checked) error {
	within := ""
	for _, col := range t.Columns {
		if col.Role == evidence.RoleWithinTolerance {
			within = col.Name
		}
	}
	keyCols := ch.Since.KeyColumns
	data := struct {
		Keys, Table, Check, RunID, StartedAt, New, Recurring, Within string
		KeyColumns                                                   []string
		Compared                                                     bool
	}{ch.Keys, t.Table, t.Check, c.Run.ID, c.Run.StartedAt.UTC().Format(time.RFC3339), evidence.LifecycleNew, evidence.LifecycleRecurring, within, keyCols, ch.Since.Compared}
	if err := db.ExecFile(ctx, statements(), queries.HistoryKeys, data); err != nil {
		return err
	}
	if err := db.ExecFile(ctx, statements(), queries.HistoryClassified, struct {
		Out, Table, Keys    string
		KeyColumns, Columns []string
	}{ch.Table, t.Table, ch.Keys, keyCols, evidence.LifecycleColumns}); err != nil {
		return err
	}
	cols, err := db.Columns(ctx, ch.Table)
	if err != nil {
		return err
	}
	for _, col := range cols[len(t.Columns):] {
		ch.Columns = append(ch.Columns, evidence.Column{Name: col.Name, Type: col.Type})
	}
	_, r, err := db.StringsFile(ctx, statements(), queries.HistoryKeyCounts, data)
	if err != nil {
		return err
	}
	fmt.Sscan(*r[0][0], &ch.Since.New)
	fmt.Sscan(*r[0][1], &ch.Since.Recurring)
	return nil
}

// resolve makes the table of the previous run's keys this run does not
// find (resolved.sql) and counts them as resolved — unless the check's
// settings changed since (scopeChange: they are only not found), or, for a
// check of matched ids, their id is no longer in both inputs (not found
// either: the check no longer looks at them).
func resolve(ctx context.Context, db *duck.DB, c *Classification, t Table, ch *Checked, scopeChange string) error {
	keyCols := ch.Since.KeyColumns
	resolved := "history_resolved__" + t.Check
	type matchedPart struct {
		Index  int
		Column string
	}
	resolveData := struct {
		Out, Check, Keys, PreviousRunID string
		KeyColumns, Columns             []string
		Matched                         []matchedPart
	}{resolved, t.Check, ch.Keys, c.Previous.ID, keyCols, []string{evidence.ColumnFirstSeenRun, evidence.ColumnFirstSeenDate, evidence.ColumnOpenRuns, evidence.ColumnLastSeenRun}, nil}
	if err := db.ExecFile(ctx, statements(), queries.HistoryResolved, resolveData); err != nil {
		return err
	}
	gone, err := db.CountRows(ctx, resolved)
	if err != nil {
		return err
	}
	if scopeChange != "" {
		// The spec changed between the runs (a column added to ignore:, a
		// tolerance): an exception found by both recurs, but one of the
		// previous run this one does not find may be one it no longer
		// looks for, not one resolved.
		ch.Since.Note = fmt.Sprintf("this run looked for the check's exceptions with other settings than the previous run (%s) did (%s): ", c.Previous.ID, scopeChange)
		if gone == 0 {
			ch.Since.Note += "every exception of that run is found again"
		} else {
			ch.Since.Note += fmt.Sprintf("%d of that run's exceptions are not found now, and none is called resolved: this run may no longer look for them", gone)
		}
		ch.Since.NotFound = gone
		return nil
	}
	ch.Since.Resolved = gone
	if gone > 0 && len(t.MatchedIDs) > 0 {
		// A check of matched ids looks at an id only while it is in both
		// inputs: one of its keys whose id is missing from either now is
		// not resolved (missing_ids or unexpected_ids has the id).
		for _, id := range t.MatchedIDs {
			if i := slices.Index(keyCols, id); i >= 0 {
				resolveData.Matched = append(resolveData.Matched, matchedPart{i + 1, id})
			}
		}
		if len(resolveData.Matched) == len(t.MatchedIDs) {
			if err := db.ExecFile(ctx, statements(), queries.HistoryResolved, resolveData); err != nil {
				return err
			}
			if ch.Since.Resolved, err = db.CountRows(ctx, resolved); err != nil {
				return err
			}
			if ch.Since.NotFound = gone - ch.Since.Resolved; ch.Since.NotFound > 0 {
				ch.Since.Note = fmt.Sprintf("%d of the previous run's (%s) exceptions are on ids not in both inputs now (missing from one: see missing_ids and unexpected_ids), which this check no longer looks at: none of them is called resolved", ch.Since.NotFound, c.Previous.ID)
			}
		}
	}
	if ch.Since.Resolved > 0 {
		ch.Resolved = resolved
		ch.Since.ResolvedFile = evidence.ResolvedFileOf(t.Check)
	}
	return nil
}

// runSummary reads the summary.json of run seq from the attached history
// (its parameters and comparison, for the scope of its checks). A summary
// that is not JSON is ErrHistory.
func runSummary(ctx context.Context, db *duck.DB, seq int64) (*evidence.Summary, error) {
	_, r, err := db.StringsFile(ctx, statements(), queries.HistoryRunSummary, struct {
		DB  string
		Seq int64
	}{dbName, seq})
	if err != nil {
		return nil, err
	}
	if len(r) != 1 || r[0][0] == nil {
		return nil, fmt.Errorf("%w: run %d has no summary", ErrHistory, seq)
	}
	var s evidence.Summary
	if err := json.Unmarshal([]byte(*r[0][0]), &s); err != nil {
		return nil, fmt.Errorf("%w: run %d: summary: %w", ErrHistory, seq, err)
	}
	return &s, nil
}
