package checks

import (
	"context"
	"strconv"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
)

// Episode is one replay episode of a sink: the keys written again under
// one pair of checkpoint ids, attributed to one restart (or to none).
type Episode struct {
	// RestartNo and Restart are the restart that explains the episode
	// (restarts.Restart.No and Label); 0 and "" when none does.
	RestartNo int
	Restart   string
	// From and To are the checkpoint ids of the earlier write and of the
	// write again, as the sink wrote them ("NULL" for a row without one).
	From, To string
	// Keys counts the keys written again (record ids, or windows and
	// groups); Copies the rows written again (more than Keys when a key
	// was written three times or more in the episode).
	Keys, Copies int64
	// Amounts are, per measure (a sink of records) or aggregate (a
	// windowed sink), the exact sum of the rows written again, as decimal
	// text: what was posted twice.
	Amounts []EpisodeAmount
}

// EpisodeAmount is the sum of one value column over an episode's copies.
type EpisodeAmount struct {
	Column, Amount string
}

// ReplayEpisodes returns the replay episodes of the prepared sink
// (replay/episodes.sql: every key on more than one row — for records, the
// sink's rows of a record id; for a windowed sink, the compared rows of
// replay_sink of a window and group — each copy after the first, in
// checkpoint order, counted under the checkpoint pair it was written
// again across and attributed to the restart that rewound the copy before
// it, rules/restart_of.sql) and the statement it ran, for the evidence.
// Table restarts must exist (LoadRestarts; empty without a restart
// history). Without a checkpoint column (spec checkpoint:) there are no
// episodes: nil, "" and no error. Errors are DuckDB's.
func ReplayEpisodes(ctx context.Context, db *duck.DB, p *Params) ([]Episode, string, error) {
	data := struct {
		Replay             bool
		ID, Groups, Values []string
		Checkpoint         string
	}{ID: p.ID, Values: p.Measures, Checkpoint: p.Checkpoint}
	if r := p.Replay; r != nil {
		data.Replay, data.Groups, data.Values, data.Checkpoint = true, r.GroupBy, r.Columns(), r.Checkpoint
	} else if len(p.ID) == 0 {
		return nil, "", nil
	}
	if data.Checkpoint == "" {
		return nil, "", nil
	}
	q, err := replaySQL.SQL(queries.ReplayEpisodes, data)
	if err != nil {
		return nil, "", err
	}
	cols, rows, err := db.Strings(ctx, q)
	if err != nil {
		return nil, q, err
	}
	var out []Episode
	for _, r := range rows {
		e := Episode{Restart: deref(r[1]), From: deref(r[2]), To: deref(r[3])}
		if r[0] != nil {
			e.RestartNo, _ = strconv.Atoi(*r[0])
		}
		e.Keys, _ = strconv.ParseInt(deref(r[4]), 10, 64)
		e.Copies, _ = strconv.ParseInt(deref(r[5]), 10, 64)
		for i := 6; i < len(cols); i++ {
			e.Amounts = append(e.Amounts, EpisodeAmount{Column: cols[i], Amount: deref(r[i])})
		}
		out = append(out, e)
	}
	return out, q, nil
}

// deref is the text of a nullable value, "" for NULL.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
