package history

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/queries"
)

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
