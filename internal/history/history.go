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
	"context"
	"sync"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
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

// dbName is the name the history database is attached under.
const dbName = "reconcile_history_db"

// statements are the files of queries/history, read once when first used.
var statements = sync.OnceValue(func() *queries.Set {
	funcs := sqlfile.Funcs()
	funcs["inc"] = func(i int) int { return i + 1 } // DuckDB lists are indexed from 1
	return queries.MustSet("history", funcs)
})

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
