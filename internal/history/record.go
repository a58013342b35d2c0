package history

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/leftover"
	"github.com/reconcile-dev/reconcile/queries"
)

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
