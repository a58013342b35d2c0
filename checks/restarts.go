package checks

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
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
	var rows []string
	if rs != nil {
		for _, r := range rs.Restarts {
			ck, ckt := "NULL", "NULL"
			if r.RestoredCheckpoint >= 0 {
				ck = strconv.FormatInt(r.RestoredCheckpoint, 10)
			}
			if r.RestoredCheckpointTime != nil {
				ckt = fmt.Sprintf("make_timestamptz(%d)", r.RestoredCheckpointTime.UnixMicro())
			}
			open := "NULL"
			if r.RestoredCheckpoint >= 0 {
				open = strconv.FormatInt(r.OpenEpoch, 10)
			}
			rows = append(rows, fmt.Sprintf("(%d, %s, make_timestamptz(%d), %s, %s, %s)", r.No, duck.Literal(r.Label()), r.Time.UnixMicro(), ck, ckt, open))
		}
	}
	q := `CREATE OR REPLACE TABLE restarts (restart_no INTEGER, restart VARCHAR, restart_time TIMESTAMPTZ,
	restored_checkpoint BIGINT, restored_checkpoint_time TIMESTAMPTZ, open_epoch BIGINT)`
	if err := db.Exec(ctx, q); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return []string{q}, nil
	}
	ins := "INSERT INTO restarts VALUES\n  " + strings.Join(rows, ",\n  ")
	return []string{q, ins}, db.Exec(ctx, ins)
}
