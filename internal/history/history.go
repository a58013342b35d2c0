// Package history keeps the run history of nightly controls: an embedded
// DuckDB database file (spec history:, run --history) to which every run
// of a control appends itself, and against which each run's exceptions are
// classified — new, recurring (with the run and date first seen and how
// many runs in a row they have been open) or resolved — before its
// evidence is written.
//
// # Keys
//
// An exception is identified by its check id and its key: the values, as
// text, of the exception table's columns whose role is one of
// evidence.KeyRoles (record id, group, logical key, window start and end,
// measure), in table order — never by column names. NULL stays NULL (two
// NULLs are the same key part). Rows of one check that share a key (every
// NULL id of null_ids, an id duplicated in both source and sink) are one
// exception for the history; a check with no key columns (a total out of
// balance) has one key. Counts of new, recurring and resolved exceptions
// are of keys.
//
// # When it is read and written
//
// Check validates the file before a run reads any input. Classify reads
// the previous run of the control (the last one recorded) into the run's
// DuckDB session; Record appends the run in one transaction once its
// evidence folder is published, so a run that fails changes nothing. A new
// file is built beside its final name and renamed into place only when the
// first run is in it. Every access holds an advisory lock on FILE.lock
// (flock(2)), so runs of different controls sharing one history take
// turns to write it; reads (Check, Classify, List) share the lock and need
// no write access to the history's folder. Two runs of one control are
// kept apart by the control's own lock (package lock).
//
// A file that is not a DuckDB database, a DuckDB database without the
// identity table, or one written by a newer reconcile (a higher schema
// version) is refused with ErrHistory (exit 2) and never written to.
//
// # Schema (SchemaVersion 1)
//
// The statements are in queries/history; created by create_schema.sql:
//
//	reconcile_history  the identity row: magic (Magic), schema_version,
//	                   created_at, created_by (the reconcile version)
//	runs               one row per run: run_seq (1, 2, … in recording order),
//	                   run_id, control, started_at, finished_at (TIMESTAMPTZ),
//	                   status (pass, fail), params (JSON object: name → value,
//	                   as summary.json parameters.params), evidence (the
//	                   folder, absolute), manifest_sha256 (SHA-256 of its
//	                   manifest.json), source_rows, sink_rows,
//	                   source_distinct_ids, sink_distinct_ids,
//	                   sink_rows_per_key and restarts (replay runs; else
//	                   NULL), summary (summary.json as written, its own
//	                   schema_version inside)
//	run_inputs         the input fingerprints: run_seq, role, kind, location,
//	                   rows, and per file path, bytes, sha256 (NULL path for
//	                   an input that is not a file)
//	run_measures       run_seq, measure, type, source_sum, sink_sum,
//	                   difference: exact decimal text
//	run_checks         run_seq, check_id, status, exceptions (rows),
//	                   key_columns (VARCHAR[]), compared, new_keys,
//	                   recurring_keys, resolved_keys
//	exceptions         one row per exception key: run_seq, check_id, key
//	                   (VARCHAR[]), rows, since_last_run (new, recurring),
//	                   first_seen_seq (the run that opened it), open_runs
//
// A new column or table is added under a new SchemaVersion, with the
// statements to bring an older file up to it; a file is never rewritten
// otherwise.
package history

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/leftover"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// Magic is the identity of a history database (reconcile_history.magic).
const Magic = "reconcile run history"

// SchemaVersion is the version of the history database's tables this
// reconcile writes and reads.
const SchemaVersion = 1

// ErrHistory: the history file is not a history database this reconcile
// can use (not DuckDB, damaged, another application's, a newer schema). It
// is a usage error (exit 2): the file named is the wrong one, and it is
// left as it is.
var ErrHistory = fault.Usage.New("history: not a usable run history")

// lockWait is how long an access waits for another run to release the
// history file.
var lockWait = 2 * time.Minute

// dbName is the name the history database is attached under.
const dbName = "reconcile_history_db"

// tables are the tables of SchemaVersion, sorted.
var tables = []string{"exceptions", "reconcile_history", "run_checks", "run_inputs", "run_measures", "runs"}

var statements = sync.OnceValue(func() *queries.Set {
	funcs := sqlfile.Funcs()
	funcs["inc"] = func(i int) int { return i + 1 } // DuckDB lists are indexed from 1
	return queries.MustSet("history", funcs)
})

// sniff reports whether path exists and, if it does, checks that it is a
// DuckDB database file (the magic bytes "DUCK" at offset 8 of its main
// header) before DuckDB is let near it: DuckDB would take an empty file
// for a new database and write into it.
func sniff(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	if st.IsDir() {
		return true, fmt.Errorf("%w: %s is a folder; history: names the database file", ErrHistory, path)
	}
	head := make([]byte, 12)
	if _, err := io.ReadFull(f, head); err != nil || string(head[8:12]) != "DUCK" {
		return true, fmt.Errorf("%w: %s is not a DuckDB database (damaged, or another kind of file); it is left as it is — name another history file, or move this one away", ErrHistory, path)
	}
	return true, nil
}

// attach attaches the existing history file path to db (read-only, or for
// writing) and checks that it is a history database of a schema this
// reconcile reads. The returned function detaches it.
func attach(ctx context.Context, db *duck.DB, path string, readOnly bool) (func() error, error) {
	if err := db.ExecFile(ctx, statements(), queries.HistoryAttach, struct {
		Path, DB string
		ReadOnly bool
	}{path, dbName, readOnly}); err != nil {
		return nil, fmt.Errorf("%w: %s cannot be opened (%w); it is left as it is", ErrHistory, path, err)
	}
	detach := func() error {
		return db.ExecFile(context.WithoutCancel(ctx), statements(), queries.HistoryDetach, struct{ DB string }{dbName})
	}
	if err := identify(ctx, db, path); err != nil {
		detach()
		return nil, err
	}
	return detach, nil
}

// identify checks the identity row and the tables of the attached file.
func identify(ctx context.Context, db *duck.DB, path string) error {
	_, r, err := db.StringsFile(ctx, statements(), queries.HistoryTables, struct{ DB string }{dbName})
	if err != nil {
		return err
	}
	var have []string
	for _, row := range r {
		have = append(have, *row[0])
	}
	if !slices.Contains(have, "reconcile_history") {
		return fmt.Errorf("%w: %s is a DuckDB database but not a reconcile run history (it has no reconcile_history table; tables: %s); it is left as it is", ErrHistory, path, strings.Join(have, ", "))
	}
	_, id, err := db.StringsFile(ctx, statements(), queries.HistoryIdentity, struct{ DB string }{dbName})
	if err != nil {
		return fmt.Errorf("%w: %s: its reconcile_history table cannot be read: %w", ErrHistory, path, err)
	}
	if len(id) != 1 || id[0][0] == nil || *id[0][0] != Magic || id[0][1] == nil {
		return fmt.Errorf("%w: %s: its reconcile_history table does not identify a reconcile run history (want one row with magic %q)", ErrHistory, path, Magic)
	}
	var version int
	fmt.Sscan(*id[0][1], &version)
	if version != SchemaVersion {
		by := ""
		if id[0][2] != nil {
			by = " by reconcile " + *id[0][2]
		}
		return fmt.Errorf("%w: %s has schema version %d (created%s); this reconcile reads version %d", ErrHistory, path, version, by, SchemaVersion)
	}
	for _, t := range tables {
		if !slices.Contains(have, t) {
			return fmt.Errorf("%w: %s is damaged: table %s of schema version %d is missing", ErrHistory, path, t, SchemaVersion)
		}
	}
	return nil
}

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

// Check validates the history file path before a run reads anything: a
// file that does not exist yet is fine (the first run creates it); one that
// exists must be a history database of SchemaVersion (else ErrHistory).
func Check(ctx context.Context, path string) error {
	// A file that is not there or not a history is answered without the
	// lock: nothing (no lock file, no folder) is made for it.
	if exists, err := sniff(path); err != nil || !exists {
		return err
	}
	return readLocked(ctx, path, func() error {
		exists, err := sniff(path)
		if err != nil || !exists {
			return err
		}
		db, err := duck.Open(ctx, "")
		if err != nil {
			return err
		}
		defer db.Close()
		detach, err := attach(ctx, db, path, true)
		if err != nil {
			return err
		}
		return detach()
	})
}

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

// classify makes the keys, classified rows and resolved keys of one check.
func classify(ctx context.Context, db *duck.DB, c *Classification, t Table, prev map[string]CheckRecord, prevSummary *evidence.Summary) (*Checked, error) {
	keyCols := evidence.KeyColumns(t.Columns)
	within := ""
	for _, col := range t.Columns {
		if col.Role == evidence.RoleWithinTolerance {
			within = col.Name
		}
	}
	ch := &Checked{Table: "history_classified__" + t.Check, Keys: "history_keys__" + t.Check}
	ch.Since = evidence.SinceLastRun{KeyColumns: keyCols}
	pc, ran := prev[t.Check]
	var scopeChange string
	if prevSummary != nil && prevSummary.Parameters != nil && c.Run.Parameters != nil {
		scopeChange = evidence.ScopeChange(
			evidence.CheckScope(prevSummary.Parameters, prevSummary.Comparison, t.Requires, t.Tolerance),
			evidence.CheckScope(c.Run.Parameters, c.Run.Comparison, t.Requires, t.Tolerance))
	}
	switch {
	case c.Previous == nil:
		ch.Since.Note = "the control's first run in this history: every exception is new"
	case !ran || pc.Status == evidence.Skipped:
		ch.Since.Note = "the previous run (" + c.Previous.ID + ") did not run this check: every exception is new"
	case !slices.Equal(pc.KeyColumns, keyCols):
		ch.Since.Note = fmt.Sprintf("the previous run (%s) keyed this check by %s, this one by %s: every exception is new", c.Previous.ID, listOrNone(pc.KeyColumns), listOrNone(keyCols))
	default:
		held, err := db.CountFile(ctx, statements(), queries.HistoryPreviousKeys, struct{ Check string }{t.Check})
		if err != nil {
			return nil, err
		}
		if recorded := pc.New + pc.Recurring; held != recorded {
			// The history lost part of that run's keys (a run stopped
			// while its recording was made durable): a key missing from it
			// would be called new, and one of this run missing there
			// resolved.
			ch.Since.Note = fmt.Sprintf("the history holds %d of the %d exception keys the previous run (%s) recorded for this check: it cannot be compared with that run (the history was damaged, by a run stopped while it was recorded?): every exception is new", held, recorded, c.Previous.ID)
			c.Incomplete = append(c.Incomplete, t.Check)
			break
		}
		ch.Since.Compared = true
	}
	data := struct {
		Keys, Table, Check, RunID, StartedAt, New, Recurring, Within string
		KeyColumns                                                   []string
		Compared                                                     bool
	}{ch.Keys, t.Table, t.Check, c.Run.ID, c.Run.StartedAt.UTC().Format(time.RFC3339), evidence.LifecycleNew, evidence.LifecycleRecurring, within, keyCols, ch.Since.Compared}
	if err := db.ExecFile(ctx, statements(), queries.HistoryKeys, data); err != nil {
		return nil, err
	}
	if err := db.ExecFile(ctx, statements(), queries.HistoryClassified, struct {
		Out, Table, Keys    string
		KeyColumns, Columns []string
	}{ch.Table, t.Table, ch.Keys, keyCols, evidence.LifecycleColumns}); err != nil {
		return nil, err
	}
	cols, err := db.Columns(ctx, ch.Table)
	if err != nil {
		return nil, err
	}
	for _, col := range cols[len(t.Columns):] {
		ch.Columns = append(ch.Columns, evidence.Column{Name: col.Name, Type: col.Type})
	}
	_, r, err := db.StringsFile(ctx, statements(), queries.HistoryKeyCounts, data)
	if err != nil {
		return nil, err
	}
	fmt.Sscan(*r[0][0], &ch.Since.New)
	fmt.Sscan(*r[0][1], &ch.Since.Recurring)
	if !ch.Since.Compared {
		return ch, nil
	}
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
		return nil, err
	}
	gone, err := db.CountRows(ctx, resolved)
	if err != nil {
		return nil, err
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
		return ch, nil
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
				return nil, err
			}
			if ch.Since.Resolved, err = db.CountRows(ctx, resolved); err != nil {
				return nil, err
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
	return ch, nil
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

func listOrNone(cols []string) string {
	if len(cols) == 0 {
		return "no key column"
	}
	return strings.Join(cols, ", ")
}

// CheckRecord is one check of a recorded run (table run_checks).
type CheckRecord struct {
	ID         string
	Status     evidence.Status
	Exceptions int64
	KeyColumns []string
	Compared   bool
	New        int64
	Recurring  int64
	Resolved   int64
}

// RunRecord is one run as the history holds it.
type RunRecord struct {
	evidence.HistoryRun
	// Seq is the run's sequence number in the file (1, 2, … in recording
	// order).
	Seq        int64
	Control    string
	FinishedAt string
	// Evidence is the run's evidence folder, absolute.
	Evidence string
	// ManifestSHA is the SHA-256 (hex) of the folder's manifest.json as the
	// run published it (EvidenceState compares it with the folder now).
	ManifestSHA string
	// SourceRows and SinkRows are the populations; SinkRowsPerKey and
	// Restarts are set for a replay run.
	SourceRows, SinkRows int64
	SinkRowsPerKey       *float64
	Restarts             *int64
	// Checks are the run's checks, by check id order.
	Checks []CheckRecord
}

// recentRuns reads the last limit runs (0: all) of control ("" with all
// controls) from the attached history, oldest first, with their checks.
func recentRuns(ctx context.Context, db *duck.DB, control string, limit int) ([]*RunRecord, error) {
	_, r, err := db.StringsFile(ctx, statements(), queries.HistoryRecentRuns, struct {
		DB, Control string
		All         bool
		Limit       int
	}{dbName, control, control == "", limit})
	if err != nil {
		return nil, err
	}
	var out []*RunRecord
	bySeq := map[int64]*RunRecord{}
	var seqs []int64
	for _, row := range r {
		rr := &RunRecord{}
		fmt.Sscan(*row[0], &rr.Seq)
		rr.ID, rr.Control, rr.StartedAt, rr.FinishedAt = *row[1], *row[2], *row[3], *row[4]
		rr.Status = evidence.Status(*row[5])
		if err := json.Unmarshal([]byte(*row[6]), &rr.Params); err != nil {
			return nil, fmt.Errorf("%w: run %s: params: %w", ErrHistory, rr.ID, err)
		}
		if len(rr.Params) == 0 {
			rr.Params = nil
		}
		rr.Evidence = *row[7]
		fmt.Sscan(*row[8], &rr.SourceRows)
		fmt.Sscan(*row[9], &rr.SinkRows)
		if row[10] != nil {
			var v float64
			fmt.Sscan(*row[10], &v)
			rr.SinkRowsPerKey = &v
		}
		if row[11] != nil {
			var v int64
			fmt.Sscan(*row[11], &v)
			rr.Restarts = &v
		}
		rr.ManifestSHA = *row[12]
		rr.Exceptions = map[string]int64{}
		out = append(out, rr)
		bySeq[rr.Seq] = rr
		seqs = append(seqs, rr.Seq)
	}
	if len(seqs) == 0 {
		return out, nil
	}
	_, cr, err := db.StringsFile(ctx, statements(), queries.HistoryRunChecks, struct {
		DB   string
		Seqs []int64
	}{dbName, seqs})
	if err != nil {
		return nil, err
	}
	for _, row := range cr {
		var seq int64
		fmt.Sscan(*row[0], &seq)
		pc := CheckRecord{ID: *row[1], Status: evidence.Status(*row[2])}
		fmt.Sscan(*row[3], &pc.Exceptions)
		if err := json.Unmarshal([]byte(*row[4]), &pc.KeyColumns); err != nil {
			return nil, fmt.Errorf("%w: run %d check %s: key_columns: %w", ErrHistory, seq, pc.ID, err)
		}
		pc.Compared = *row[5] == "true"
		fmt.Sscan(*row[6], &pc.New)
		fmt.Sscan(*row[7], &pc.Recurring)
		fmt.Sscan(*row[8], &pc.Resolved)
		rr := bySeq[seq]
		rr.Checks = append(rr.Checks, pc)
		rr.Exceptions[pc.ID] = pc.Exceptions
	}
	return out, nil
}

// List returns the runs recorded in the history file path, oldest first,
// of control ("" for every control), with their checks. A file that does
// not exist is an error wrapping os.ErrNotExist.
func List(ctx context.Context, path, control string) ([]*RunRecord, error) {
	// refused without the lock: nothing is made beside a file that is not
	// a history, or that is not there
	if exists, err := sniff(path); err != nil {
		return nil, err
	} else if !exists {
		return nil, fmt.Errorf("%w: %s: %w", ErrHistory, path, os.ErrNotExist)
	}
	var out []*RunRecord
	err := readLocked(ctx, path, func() error {
		exists, err := sniff(path)
		if err != nil {
			return err
		}
		if !exists {
			return fmt.Errorf("%w: %s: %w", ErrHistory, path, os.ErrNotExist)
		}
		db, err := duck.Open(ctx, "")
		if err != nil {
			return err
		}
		defer db.Close()
		detach, err := attach(ctx, db, path, true)
		if err != nil {
			return err
		}
		defer detach()
		out, err = recentRuns(ctx, db, control, 0)
		return err
	})
	return out, err
}

// Record appends the run s — published in the evidence folder dir (its
// manifest.json's SHA-256 manifestSHA) and classified as c — to the
// history file, in one transaction: the run, its inputs, measures, checks
// and exception keys, or nothing. A history file that does not exist yet
// is built beside its final name and renamed into place with the run in
// it.
func Record(ctx context.Context, db *duck.DB, c *Classification, s *evidence.Summary, dir, manifestSHA string) error {
	ctx = context.WithoutCancel(ctx) // the evidence is published: record it whatever happens now
	return locked(ctx, c.File, func() error {
		exists, err := sniff(c.File)
		if err != nil {
			return err
		}
		target := c.File
		if !exists {
			target = leftover.HistoryStaging(c.File)
			os.Remove(target)
			defer os.Remove(target)
			if err := db.ExecFile(ctx, statements(), queries.HistoryAttach, struct {
				Path, DB string
				ReadOnly bool
			}{target, dbName, false}); err != nil {
				return fmt.Errorf("history: create %s: %w", c.File, err)
			}
			if err := db.ExecFile(ctx, statements(), queries.HistoryCreateSchema, struct {
				DB, Magic, Tool string
				Version         int
			}{dbName, Magic, s.Run.ToolVersion, SchemaVersion}); err != nil {
				db.ExecFile(ctx, statements(), queries.HistoryDetach, struct{ DB string }{dbName})
				return fmt.Errorf("history: create %s: %w", c.File, err)
			}
		} else {
			detach, err := attach(ctx, db, c.File, false)
			if err != nil {
				return err
			}
			defer detach()
		}
		if err := insert(ctx, db, c, s, dir, manifestSHA); err != nil {
			if !exists {
				db.ExecFile(ctx, statements(), queries.HistoryDetach, struct{ DB string }{dbName})
			}
			return fmt.Errorf("history: record run %s in %s (the history is unchanged): %w", s.Run.ID, c.File, err)
		}
		if err := db.ExecFile(ctx, statements(), queries.HistoryCheckpoint, struct{ DB string }{dbName}); err != nil {
			return err
		}
		if exists {
			return nil
		}
		if err := db.ExecFile(ctx, statements(), queries.HistoryDetach, struct{ DB string }{dbName}); err != nil {
			return err
		}
		if _, err := os.Stat(target + ".wal"); err == nil {
			return fmt.Errorf("history: %s.wal is left after the checkpoint; the new history was not put in place", target)
		}
		// Link, not rename: a file that appeared meanwhile is not replaced.
		if err := os.Link(target, c.File); err != nil {
			return fmt.Errorf("history: put %s in place: %w", c.File, err)
		}
		return nil
	})
}

// insert writes the run in one transaction.
func insert(ctx context.Context, db *duck.DB, c *Classification, s *evidence.Summary, dir, manifestSHA string) (err error) {
	if err := db.ExecFile(ctx, statements(), queries.HistoryBegin, nil); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			db.ExecFile(ctx, statements(), queries.HistoryRollback, nil)
		}
	}()
	seq, err := db.CountFile(ctx, statements(), queries.HistoryNextSeq, struct{ DB string }{dbName})
	if err != nil {
		return err
	}
	params, err := json.Marshal(orEmpty(s.Parameters.Params))
	if err != nil {
		return err
	}
	var summary strings.Builder
	if err := s.Encode(&summary); err != nil {
		return err
	}
	var perKey, restarts any
	if r := s.Replay; r != nil {
		perKey, restarts = r.SinkRowsPerKey, len(r.Restarts)
	}
	t := s.Totals
	if err := db.ExecFile(ctx, statements(), queries.HistoryInsertRun, struct{ DB string }{dbName}, seq, s.Run.ID, s.Control.Name, s.Run.StartedAt, s.Run.FinishedAt,
		string(s.Status), string(params), dir, manifestSHA, t.SourceRows, t.SinkRows, t.SourceDistinctIDs, t.SinkDistinctIDs,
		perKey, restarts, summary.String()); err != nil {
		return err
	}
	for _, in := range s.Inputs {
		if len(in.Files) == 0 {
			if err := db.ExecFile(ctx, statements(), queries.HistoryInsertInput, struct{ DB string }{dbName}, seq, in.Role, in.Kind, in.Location, in.Rows, nil, nil, nil); err != nil {
				return err
			}
		}
		for _, f := range in.Files {
			if err := db.ExecFile(ctx, statements(), queries.HistoryInsertInput, struct{ DB string }{dbName}, seq, in.Role, in.Kind, in.Location, in.Rows, f.Path, f.Bytes, f.SHA256); err != nil {
				return err
			}
		}
	}
	for _, m := range t.Measures {
		if err := db.ExecFile(ctx, statements(), queries.HistoryInsertMeasure, struct{ DB string }{dbName}, seq, m.Name, m.Type, m.SourceSum, m.SinkSum, m.Difference); err != nil {
			return err
		}
	}
	for _, chk := range s.Checks {
		if chk.Status == evidence.Skipped {
			continue
		}
		since := chk.SinceLastRun
		if since == nil {
			since = &evidence.SinceLastRun{KeyColumns: []string{}}
		}
		if err := db.ExecFile(ctx, statements(), queries.HistoryInsertCheck, struct {
			DB, Check, Status        string
			Seq, Exceptions          int64
			KeyColumns               []string
			Compared                 bool
			New, Recurring, Resolved int64
		}{dbName, chk.ID, string(chk.Status), seq, chk.Exceptions, since.KeyColumns, since.Compared, since.New, since.Recurring, since.Resolved}); err != nil {
			return err
		}
		if ch := c.Checks[chk.ID]; ch != nil {
			if err := db.ExecFile(ctx, statements(), queries.HistoryInsertExceptions, struct {
				DB, Check, Keys string
				Seq             int64
			}{dbName, chk.ID, ch.Keys, seq}); err != nil {
				return err
			}
		}
	}
	return db.ExecFile(ctx, statements(), queries.HistoryCommit, nil)
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// Lockfile is the advisory lock file of history file path.
func Lockfile(path string) string { return path + ".lock" }

// Evidence states of a recorded run's folder (EvidenceState).
const (
	// EvidenceInPlace: the folder's manifest.json is the one the run
	// published, and every file is as it lists.
	EvidenceInPlace = "in place"
	// EvidenceReplaced: the folder holds another run's manifest.json — a
	// later run wrote its evidence there (run --force, or a control whose
	// out: names no date); the run's own evidence is gone.
	EvidenceReplaced = "replaced"
	// EvidenceChanged: a file of the folder differs from what the run
	// published (a report edited, an exceptions file removed, a file
	// added), or its manifest.json names the run but is not the one it
	// published.
	EvidenceChanged = "changed"
	// EvidenceMissing: the folder or its manifest.json is not there (moved
	// or removed).
	EvidenceMissing = "missing"
	// EvidenceUnreadable: the manifest.json is there but cannot be read
	// (permissions, or not a file).
	EvidenceUnreadable = "unreadable"
)

// EvidenceState says whether r's evidence folder still holds the evidence
// r published: by the SHA-256 of its manifest.json and, when that is the
// one recorded, by every file against the manifest (evidence.Verify: each
// file's size and SHA-256, none missing, none added, the signature as the
// manifest says); when the manifest differs, by the run id it names.
// EvidenceInPlace, EvidenceReplaced (why: the run it holds),
// EvidenceChanged (why: what changed), EvidenceMissing or
// EvidenceUnreadable (why: the error). A folder is one run's business: no
// state is an error of the listing.
func EvidenceState(ctx context.Context, r *RunRecord) (state, why string) {
	b, err := os.ReadFile(filepath.Join(r.Evidence, evidence.ManifestFile))
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return EvidenceMissing, ""
	case err != nil:
		return EvidenceUnreadable, err.Error()
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) == r.ManifestSHA {
		v, err := evidence.Verify(ctx, r.Evidence, nil)
		if err != nil {
			return EvidenceUnreadable, err.Error()
		}
		if v.OK() {
			return EvidenceInPlace, ""
		}
		var what []string
		for _, l := range []struct {
			files []string
			how   string
		}{{v.Changed, "changed"}, {v.Missing, "missing"}, {v.Added, "added"}} {
			for _, f := range l.files {
				what = append(what, f+" "+l.how)
			}
		}
		if len(what) == 0 {
			what = append(what, "manifest.sig "+v.Signature)
		}
		return EvidenceChanged, strings.Join(what, ", ")
	}
	var m struct {
		RunID string `json:"run_id"`
	}
	if json.Unmarshal(b, &m) == nil && m.RunID != "" && m.RunID != r.ID {
		return EvidenceReplaced, "it holds run " + m.RunID
	}
	return EvidenceChanged, "its manifest.json is not the one recorded"
}
