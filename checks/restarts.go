package checks

import (
	"context"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// LoadRestarts creates table restarts from rs (nil: an empty table) and
// returns the statements it ran:
//
//	restart_no INTEGER, restart VARCHAR (restarts.Restart.Label),
//	restart_time TIMESTAMPTZ, restored_checkpoint BIGINT (NULL if unknown),
//	restored_checkpoint_time TIMESTAMPTZ, open_epoch BIGINT
//
// A finding is explained by the earliest restart that rewound its first
// write — restored_checkpoint < epoch <= open_epoch — or, for a value
// mismatch, one whose replayed interval [restored_checkpoint_time,
// restart_time) holds events of the finding's key.
func LoadRestarts(ctx context.Context, db *duck.DB, rs *restarts.Restarts) ([]string, error) {
	type row struct {
		No                         int
		Label                      string
		Time                       int64
		Known, HasCheckpointTime   bool
		Checkpoint, CheckpointTime int64
		OpenEpoch                  int64
	}
	var data []row
	if rs != nil {
		for _, r := range rs.Restarts {
			x := row{No: r.No, Label: r.Label(), Time: r.Time.UnixMicro(), Known: r.RestoredCheckpoint >= 0,
				Checkpoint: r.RestoredCheckpoint, OpenEpoch: r.OpenEpoch}
			if r.RestoredCheckpointTime != nil {
				x.HasCheckpointTime, x.CheckpointTime = true, r.RestoredCheckpointTime.UnixMicro()
			}
			data = append(data, x)
		}
	}
	var stmts []string
	for _, st := range []struct {
		id   string
		skip bool
	}{{queries.ReplayRestartsTable, false}, {queries.ReplayRestartsRows, len(data) == 0}} {
		if st.skip {
			continue
		}
		q, err := replaySQL.SQL(st.id, data)
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, q)
		if err := db.Exec(ctx, q); err != nil {
			return stmts, err
		}
	}
	return stmts, nil
}

// LoadRestarts creates table restarts from rs (nil: none) as the package
// function does, keeps its statements in r.SQL for the evidence and sets
// r.Restarts, which the replay checks render by (without restarts they
// read no events for them). Errors: a DuckDB error.
func (r *Replay) LoadRestarts(ctx context.Context, db *duck.DB, rs *restarts.Restarts) error {
	stmts, err := LoadRestarts(ctx, db, rs)
	r.SQL = append(r.SQL, stmts...)
	if err != nil {
		return err
	}
	r.Restarts = 0
	if rs != nil {
		r.Restarts = len(rs.Restarts)
	}
	return nil
}
