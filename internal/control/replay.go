package control

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// columnsOf is what checks.Prepare needs from the spec. For a windowed sink
// (reperform:) without an explicit logical_key, the logical key is the
// window column plus the group columns (plus the last_by column), so
// the checkpoint-conflict check runs over windows.
func columnsOf(s *spec.Spec) checks.Columns {
	c := checks.Columns{ID: s.ID, Measures: s.Measures, GroupBy: s.GroupBy, Checkpoint: s.Checkpoint, LogicalKey: s.LogicalKey, Duplicates: s.Duplicates,
		Compare: s.Compare, Ignore: s.Ignore, Normalize: s.Normalize, Tolerance: s.Tolerance, BalanceTolerance: s.BalanceTolerance,
		AllowEmpty: s.AllowEmpty, SourceZone: s.ZoneOf("source"), SinkZone: s.ZoneOf("sink"),
		Balance: s.BalanceControl(), SourceGrain: s.GrainOf(spec.RoleSource), SinkGrain: s.GrainOf(spec.RoleSink)}
	if r := s.Reperform; r != nil && len(c.LogicalKey) == 0 {
		w := r.WindowEnd
		if w == "" {
			w = r.WindowStart
		}
		c.LogicalKey = append([]string{w}, r.GroupBy...)
		if lb := s.LastByColumn(); lb != "" {
			c.LogicalKey = append(c.LogicalKey, lb)
		}
	}
	return c
}

// replayRun is the re-performance stage of a run: nil when the spec has no
// reperform:.
type replayRun struct {
	replay   *checks.Replay
	restarts *restarts.Restarts
}

// readRestarts reads the spec's restarts: file(s), before any input is
// loaded (nil when none is given): for a windowed sink, or for a sink of
// records with a checkpoint column, whose duplicate copies the restarts
// explain.
func readRestarts(s *spec.Spec) (*restarts.Restarts, error) {
	if s.Restarts == "" || s.Reperform == nil && s.Checkpoint == "" {
		return nil, nil
	}
	return restarts.ReadRestarts(s.Restarts, s.Zone())
}

// recordRestarts creates table restarts for a sink of records with a
// checkpoint column (empty without restarts:), which the replay episodes
// and explain attribute duplicate copies by, and returns its statements;
// nothing for a windowed sink (prepareReplay does it) or a sink without
// checkpoints.
func recordRestarts(ctx context.Context, db *duck.DB, s *spec.Spec, rs *restarts.Restarts) ([]string, error) {
	if s.Reperform != nil || s.Checkpoint == "" {
		return nil, nil
	}
	stmts, err := checks.LoadRestarts(ctx, db, rs)
	if err != nil {
		return nil, fmt.Errorf("restarts: %w", err)
	}
	return stmts, nil
}

// prepareReplay re-performs the windowed sink (tables replay_events,
// expected, replay_sink, restarts) and sets p.Replay. It returns notes for
// the evidence.
func prepareReplay(ctx context.Context, db *duck.DB, s *spec.Spec, p *checks.Params, rs *restarts.Restarts, logw io.Writer) (*replayRun, []string, error) {
	if s.Reperform == nil {
		return nil, nil, nil
	}
	if logw == nil {
		logw = io.Discard
	}
	t0 := time.Now()
	r, notes, err := checks.PrepareReplay(ctx, db, s)
	if err != nil {
		return nil, nil, fmt.Errorf("re-perform: %w", err)
	}
	r.SinkLocation = p.SinkLocation
	if err := r.LoadRestarts(ctx, db, rs); err != nil {
		return nil, nil, fmt.Errorf("restarts: %w", err)
	}
	p.Replay = r
	fmt.Fprintf(logw, "re-performed %s windows from the source in %s\n", r.Window, time.Since(t0).Round(time.Millisecond))
	return &replayRun{replay: r, restarts: rs}, notes, nil
}

// summarize attributes the findings to restarts (nil when not a replay).
func (rr *replayRun) summarize(ctx context.Context, db *duck.DB, outs []*checks.Outcome) (*checks.ReplaySummary, error) {
	if rr == nil {
		return nil, nil
	}
	return checks.SummarizeReplay(ctx, db, rr.replay, rr.restarts, outs)
}

// writeSQL saves the statements that built the replay tables as
// queries/_replay_tables.sql, so the replay checks in queries/ can be
// re-performed from the source and sink tables alone.
func (rr *replayRun) writeSQL(folder *evidence.Folder) error {
	if rr == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString("-- The re-performance of the windowed sink: run these over tables source and sink as loaded by\n" +
		"-- reconcile (session TimeZone UTC), then the replay checks in this folder.\n")
	for _, q := range rr.replay.SQL {
		b.WriteString("\n" + strings.TrimSpace(q) + ";\n")
	}
	return folder.WriteFile(evidence.ReplayTablesFile, []byte(b.String()))
}

// replayColumns are the only source columns a re-performance of a
// windowed sink reads (load.Options.Columns): every source column the spec
// names (namedColumns: the event time, reperform.group_by and group_by,
// each aggregate's argument, measures), sorted, each once. Nil — read
// every column — when the control is not a re-performance without a record
// id (with an id, the record checks compare every column).
func replayColumns(s *spec.Spec) []string {
	if s.Reperform == nil || len(s.ID) > 0 {
		return nil
	}
	var cols []string
	for _, f := range namedColumns(s, "source") {
		for _, c := range f.cols {
			if c != "" && c != "*" {
				cols = append(cols, c)
			}
		}
	}
	slices.Sort(cols)
	return slices.Compact(cols)
}
