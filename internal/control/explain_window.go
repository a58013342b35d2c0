package control

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
)

// windowKey is a window and group as asked for: the window end (an instant
// DuckDB reads back) and each group column's value as typed.
type windowKey struct {
	End    string
	Groups []KeyPart
}

// explainWindow explains one window and group of a re-performed windowed
// sink: the window the key's timestamp names, the re-performed values and
// the source events behind them, the sink's rows and their sum, and the
// verdict with the restart that explains it (explain/window_verdict.sql:
// the rules of the replay checks).
func explainWindow(ctx context.Context, db *duck.DB, r *checks.Replay, values []string, ex *Explanation, sourceLoc string) error {
	key, err := explainWindowKey(ctx, db, r, values, ex)
	if err != nil {
		return err
	}
	data := windowData{key, r.GroupBy, r.Aggregates, sourceLoc, r.SinkLocation}
	if err := explainExpected(ctx, db, data, ex); err != nil {
		return err
	}
	if err := explainWindowSink(ctx, db, r, data, ex); err != nil {
		return err
	}
	if err := explainWindowSource(ctx, db, data, ex); err != nil {
		return err
	}
	_, v, err := db.StringsFile(ctx, explainSQL, queries.ExplainWindowVerdict, data)
	if err != nil {
		return err
	}
	compared, _ := strconv.Atoi(deref(v[0][1]))
	all, _ := strconv.Atoi(deref(v[0][2]))
	ex.Verdict = windowVerdict(deref(v[0][0]), compared, all, ex.Window.Events)
	ex.Restart = deref(v[0][3])
	return nil
}

// windowData is what the window statements of queries/explain render.
type windowData struct {
	Key                     windowKey
	Groups                  []string
	Aggregates              []checks.ReplayAggregate
	SourceLocation, SinkLoc string
}

// explainWindowKey sets ex's key (the window timestamp, then the group
// values) and window, read as the sink's window column is
// (explain/window_bounds.sql), and returns the key as the statements take
// it. A timestamp DuckDB does not read is a spec.ErrInvalid.
func explainWindowKey(ctx context.Context, db *duck.DB, r *checks.Replay, values []string, ex *Explanation) (windowKey, error) {
	ex.Kind, ex.TimeZone = "window", r.Zone
	ex.Key = append(ex.Key, KeyPart{r.WindowColumn, values[0]})
	key := windowKey{}
	for i, g := range r.GroupBy {
		ex.Key = append(ex.Key, KeyPart{g, values[i+1]})
		key.Groups = append(key.Groups, KeyPart{g, values[i+1]})
	}
	_, w, err := db.StringsFile(ctx, explainSQL, queries.ExplainWindowBounds, struct {
		Value, Edge, Zone string
		Size              int64
	}{values[0], r.WindowEdge, r.Zone, r.Window.Size.Micros()})
	if err != nil {
		return key, fmt.Errorf("%w: --key %q is not a timestamp: %w", spec.ErrInvalid, values[0], err)
	}
	if len(w) == 0 || w[0][0] == nil {
		return key, fmt.Errorf("%w: --key %q is not a timestamp (expected ISO 8601 such as 2026-11-26T03:00:00Z or 2026-11-26 03:00:00, or epoch milliseconds)", spec.ErrInvalid, values[0])
	}
	ex.Window = &ExplainWindow{Start: *w[0][2], End: *w[0][3], Assigner: r.Window.String()}
	key.End = *w[0][1]
	return key, nil
}

// explainExpected sets the window's re-performed values and its number of
// source events.
func explainExpected(ctx context.Context, db *duck.DB, data windowData, ex *Explanation) error {
	cols, exp, err := db.StringsFile(ctx, explainSQL, queries.ExplainWindowExpected, data)
	if err != nil {
		return err
	}
	if len(exp) == 1 {
		ex.Window.Events, _ = strconv.ParseInt(deref(exp[0][0]), 10, 64)
		for i := 1; i < len(cols); i++ {
			ex.Expected = append(ex.Expected, Value{cols[i], exp[0][i]})
		}
	}
	return nil
}

// explainWindowSink sets the sum of the sink's rows of the window and
// group, and each row with its checkpoint, watermark, emission, whether it
// is compared, and the nearest restart by checkpoint; the columns shown on
// their own are not repeated among its values.
func explainWindowSink(ctx context.Context, db *duck.DB, r *checks.Replay, data windowData, ex *Explanation) error {
	cols, sum, err := db.StringsFile(ctx, explainSQL, queries.ExplainWindowSinkSum, data)
	if err != nil {
		return err
	}
	for i := 1; i < len(cols); i++ {
		ex.SinkSum = append(ex.SinkSum, Value{cols[i], sum[0][i]})
	}
	cols, sinkRows, err := db.StringsFile(ctx, explainSQL, queries.ExplainWindowSinkRows, data)
	if err != nil {
		return err
	}
	shown := map[string]bool{r.WindowColumn: true, r.Checkpoint: true, r.Watermark: true, r.LastBy: true}
	for _, g := range r.GroupBy {
		shown[g] = true
	}
	for _, row := range sinkRows {
		x := plainRow(cols, row, "")
		kept := x.Values[:0]
		for _, v := range x.Values {
			if !shown[v.Name] {
				kept = append(kept, v)
			}
		}
		x.Values = kept
		var epoch, nearest, relation string
		for i, c := range cols {
			switch c {
			case "__checkpoint":
				x.Checkpoint = deref(row[i])
			case "__epoch":
				epoch = deref(row[i])
			case "__watermark":
				x.Watermark = strings.Replace(deref(row[i]), ".000Z", "Z", 1)
			case "__emission":
				x.Emission = deref(row[i])
			case "__compared":
				b := deref(row[i]) == "true"
				x.Compared = &b
			case "__nearest_restart":
				nearest = deref(row[i])
			case "__nearest_relation":
				relation = deref(row[i])
			}
		}
		x.NearestRestart = nearestByEpoch(nearest, relation, epoch)
		ex.Sink = append(ex.Sink, x)
	}
	return nil
}

// explainWindowSource sets the source events of the window and group, each
// with every window it belongs to and the restart nearest in time.
func explainWindowSource(ctx context.Context, db *duck.DB, data windowData, ex *Explanation) error {
	cols, srcRows, err := db.StringsFile(ctx, explainSQL, queries.ExplainWindowSourceRows, data)
	if err != nil {
		return err
	}
	for _, row := range srcRows {
		x := plainRow(cols, row, "")
		var nearest, micros string
		replayed := false
		for i, c := range cols {
			switch c {
			case "__event_time":
				x.EventTime = strings.Replace(deref(row[i]), ".000Z", "Z", 1)
			case "__windows":
				x.Windows = strings.Split(deref(row[i]), " [")
				for j := 1; j < len(x.Windows); j++ {
					x.Windows[j] = "[" + x.Windows[j]
				}
			case "__nearest_restart":
				nearest = deref(row[i])
			case "__nearest_micros":
				micros = deref(row[i])
			case "__nearest_replayed":
				replayed = deref(row[i]) == "true"
			}
		}
		x.NearestRestart = nearestByTime(nearest, micros, replayed)
		ex.Source = append(ex.Source, x)
	}
	return nil
}

// windowVerdict words the verdict explain/window_verdict.sql reached on a
// window and group: compared sink rows of all, events source events.
func windowVerdict(verdict string, compared, all int, events int64) string {
	superseded := ""
	if compared < all {
		superseded = fmt.Sprintf(" (%d earlier emission(s) superseded)", all-compared)
	}
	switch verdict {
	case "none":
		return "no source event and no sink row"
	case "unexpected":
		return fmt.Sprintf("unexpected: %d sink row(s) for a window and group with no source event", all)
	case "missing":
		return fmt.Sprintf("missing: %d source event(s), no sink row", events)
	case "agrees":
		return "agrees: one row, equal to the re-performed value" + superseded
	case "each_row_right_repeated":
		return fmt.Sprintf("duplicated: %d rows, each equal to the re-performed value; summed, the window shows %d times its value%s", compared, compared, superseded)
	case "one_row_inflated", "one_row_short":
		return "mismatch: one row, not equal to the re-performed value" + superseded
	default:
		return fmt.Sprintf("mismatch: %d rows that differ from the re-performed value%s", compared, superseded)
	}
}

// nearestByEpoch words the restart nearest to a sink row by checkpoint
// (explain/window_sink_rows.sql) and how the row relates to it.
func nearestByEpoch(restart, relation, epoch string) string {
	switch {
	case restart == "":
		return ""
	case relation == "covered":
		return fmt.Sprintf("%s: checkpoint %s is covered by the restored checkpoint (not replayed)", restart, epoch)
	case relation == "open":
		return fmt.Sprintf("%s: checkpoint %s is the epoch open at the failure and the restored job's first: written before the failure (rolled back in state, not in the sink) or by the replay — the checkpoint id alone cannot tell", restart, epoch)
	case relation == "rewound":
		return fmt.Sprintf("%s: checkpoint %s is after the restored checkpoint and before the one open at the failure: written before the restart — rolled back in state, not in the sink", restart, epoch)
	default:
		return fmt.Sprintf("%s: checkpoint %s was written after the restart", restart, epoch)
	}
}

// nearestByTime words the restart nearest in time to a source event
// (explain/window_source_rows.sql): micros from the event to the restart,
// and whether the event lies in the restart's replayed interval.
func nearestByTime(restart, micros string, replayed bool) string {
	if restart == "" {
		return ""
	}
	us, _ := strconv.ParseInt(micros, 10, 64)
	d, rel := time.Duration(us)*time.Microsecond, "before"
	if d <= 0 {
		d, rel = -d, "after"
	}
	s := fmt.Sprintf("%s: event %s %s it", restart, d.Round(time.Second), rel)
	if replayed {
		s += ", in its replayed interval (processed twice)"
	}
	return s
}
