package control

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// ErrNoKey is returned by Explain when no source or sink row has the key
// (a usage error: the key was probably mistyped).
var ErrNoKey = fault.Usage.New("explain: no row has this key")

// Explanation is everything reconcile knows about one key: a record id, or
// for a windowed sink a window and group. It is what `reconcile explain`
// prints, and its JSON form (--json).
type Explanation struct {
	// Kind is "window" (reperform:) or "record".
	Kind string `json:"kind"`
	// Key pairs the key columns with the values asked for.
	Key []KeyPart `json:"key"`
	// TimeZone is the zone zone-less timestamps were read in.
	TimeZone string `json:"time_zone,omitempty"`
	// Window is the window of the key, start inclusive, end exclusive,
	// UTC (window kind only).
	Window *ExplainWindow `json:"window,omitempty"`
	// Expected are the re-performed aggregate values (window kind only;
	// nil when the source has no event in the window and group).
	Expected []Value `json:"expected,omitempty"`
	// SinkSum is the sum of the compared sink rows per aggregate — what a
	// dashboard summing the rows shows (window kind only).
	SinkSum []Value `json:"sink_sum,omitempty"`
	// Verdict is one sentence on the key.
	Verdict string `json:"verdict"`
	// Restart is the restart that explains the key's finding ("" if none).
	Restart string `json:"restart,omitempty"`
	// Sink and Source are every row of the key, in input order.
	Sink   []ExplainRow `json:"sink_rows"`
	Source []ExplainRow `json:"source_rows"`
	// Restarts are all restarts known.
	Restarts []restarts.Restart `json:"restarts,omitempty"`
}

// KeyPart is one key column and its value.
type KeyPart struct {
	Column string `json:"column"`
	Value  string `json:"value"`
}

// ExplainWindow is a window [Start, End) in UTC, RFC 3339.
type ExplainWindow struct {
	Start    string `json:"start"`
	End      string `json:"end"`
	Assigner string `json:"assigner"`
	Events   int64  `json:"source_events"`
}

// Value is one named value rendered as text (exact decimals keep their
// scale; NULL is nil).
type Value struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// ExplainRow is one input row of the key.
type ExplainRow struct {
	// Location is file:line.
	Location string `json:"location"`
	// Values are the row's columns as loaded, in input order.
	Values []Value `json:"values"`
	// Checkpoint, Watermark and Emission are the sink row's checkpoint id,
	// watermark (UTC) and last_by value; EventTime the source row's event
	// instant (UTC).
	Checkpoint string `json:"checkpoint,omitempty"`
	Watermark  string `json:"watermark,omitempty"`
	Emission   string `json:"emission,omitempty"`
	EventTime  string `json:"event_time,omitempty"`
	// Compared is false for a superseded emission (last_by).
	Compared *bool `json:"compared,omitempty"`
	// Windows are the windows a source event belongs to, as [start, end).
	Windows []string `json:"windows,omitempty"`
	// NearestRestart is the restart closest to the row: by checkpoint id
	// for sink rows, by time for source rows, with how it relates.
	NearestRestart string `json:"nearest_restart,omitempty"`
}

// Explain loads the inputs of s (as `reconcile run` does, without writing
// evidence) and returns every source and sink row of one key. For a
// windowed sink, values are the window timestamp (the sink's window_end or
// window_start; any spelling with or without zone) then one value per
// group column; otherwise one value per id column. Values are compared as
// text, as the inputs wrote them.
func Explain(ctx context.Context, s *spec.Spec, values []string) (*Explanation, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var rs *restarts.Restarts
	if s.Restarts != "" {
		var err error
		if rs, err = restarts.ReadRestarts(s.Restarts, s.Zone()); err != nil {
			return nil, err
		}
	}
	want := len(s.ID)
	what := "the id column(s) " + strings.Join(s.ID, ", ")
	if r := s.Reperform; r != nil {
		want = 1 + len(r.GroupBy)
		what = "the window timestamp then the group column(s) " + strings.Join(r.GroupBy, ", ")
	}
	if len(values) != want {
		return nil, fmt.Errorf("%w: --key has %d value(s); this spec's key needs %d: %s", spec.ErrInvalid, len(values), want, what)
	}
	ins, err := openInputs(s, nil)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	if err := checkColumns(ctx, s, ins); err != nil {
		return nil, err
	}
	budget, err := memory.Machine("/")
	if err != nil {
		return nil, err
	}
	ss, err := ins.load(ctx, budget, io.Discard)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	db := ss.db
	cols := columnsOf(s)
	cols.SourceLocation, cols.SinkLocation = ss.inputs[0].LocationForm, ss.inputs[1].LocationForm
	cols.SourceProvenance, cols.SinkProvenance = ss.inputs[0].Provenance, ss.inputs[1].Provenance
	cols.SourceDecimalSeparator, cols.SinkDecimalSeparator = ss.inputs[0].Formats.DecimalSeparator, ss.inputs[1].Formats.DecimalSeparator
	params, _, err := checks.Prepare(ctx, db, cols)
	if err != nil {
		return nil, err
	}
	ex := &Explanation{Kind: "record"}
	if rs != nil {
		ex.Restarts = rs.Restarts
	}
	if s.Reperform == nil {
		err = explainRecord(ctx, db, s, values, ex, ss.inputs[0].LocationForm, ss.inputs[1].LocationForm)
	} else {
		if _, _, err = prepareReplay(ctx, db, s, params, rs, nil); err != nil {
			return nil, err
		}
		params.Replay.SinkLocation = ss.inputs[1].LocationForm
		err = explainWindow(ctx, db, params.Replay, values, ex, ss.inputs[0].LocationForm)
	}
	if err != nil {
		return nil, err
	}
	if len(ex.Sink) == 0 && len(ex.Source) == 0 && ex.Expected == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoKey, keyText(ex.Key))
	}
	return ex, nil
}

func keyText(k []KeyPart) string {
	parts := make([]string, len(k))
	for i, p := range k {
		parts[i] = p.Column + "=" + p.Value
	}
	return strings.Join(parts, ", ")
}

// explainSQL are the statements of `reconcile explain` (queries/explain),
// rendered with the checks' helpers, so the rules of restart attribution,
// timestamp reading and the window verdict are those of the checks.
var explainSQL *queries.Set

func init() {
	f := checks.Funcs()
	f["recordkey"] = func(alias string, key []KeyPart) (string, error) {
		return explainSQL.SQL(queries.ExplainRecordKey, struct {
			Alias string
			Key   []KeyPart
		}{alias, key})
	}
	f["windowkey"] = func(alias string, key windowKey) (string, error) {
		return explainSQL.SQL(queries.ExplainWindowKey, struct {
			Alias, End string
			Groups     []KeyPart
		}{alias, key.End, key.Groups})
	}
	explainSQL = queries.MustSet("explain", f)
}

// windowKey is a window and group as asked for: the window end (an instant
// DuckDB reads back) and each group column's value as typed.
type windowKey struct {
	End    string
	Groups []KeyPart
}

func explainRecord(ctx context.Context, db *duck.DB, s *spec.Spec, values []string, ex *Explanation, sourceLoc, sinkLoc string) error {
	for i, c := range s.ID {
		ex.Key = append(ex.Key, KeyPart{c, values[i]})
	}
	cols, srcRows, err := db.StringsFile(ctx, explainSQL, queries.ExplainRecordRows, struct {
		Table, Loc string
		Key        []KeyPart
	}{checks.SourceTable, sourceLoc, ex.Key})
	if err != nil {
		return err
	}
	for _, r := range srcRows {
		ex.Source = append(ex.Source, plainRow(cols, r, ""))
	}
	cols, sinkRows, err := db.StringsFile(ctx, explainSQL, queries.ExplainRecordRows, struct {
		Table, Loc string
		Key        []KeyPart
	}{checks.SinkTable, sinkLoc, ex.Key})
	if err != nil {
		return err
	}
	// No nearest restart: restarts: needs reperform: (a windowed sink).
	for _, r := range sinkRows {
		ex.Sink = append(ex.Sink, plainRow(cols, r, s.Checkpoint))
	}
	ex.Verdict = fmt.Sprintf("%d source row(s), %d sink row(s)", len(ex.Source), len(ex.Sink))
	switch {
	case len(ex.Sink) == 0 && len(ex.Source) > 0:
		ex.Verdict += ": never posted"
	case len(ex.Source) == 0:
		ex.Verdict += ": posted without a source record"
	case len(ex.Sink) > len(ex.Source):
		ex.Verdict += ": posted more than once"
	}
	return nil
}

// plainRow turns a row (provenance columns __file, __line and a trailing
// __loc) into an ExplainRow; checkpoint names the checkpoint column.
func plainRow(cols []string, r []*string, checkpoint string) ExplainRow {
	var row ExplainRow
	for i, c := range cols {
		switch {
		case c == "__loc":
			row.Location = deref(r[i])
		case strings.HasPrefix(c, "__"):
		default:
			if c == checkpoint && checkpoint != "" {
				row.Checkpoint = deref(r[i])
			}
			row.Values = append(row.Values, Value{c, r[i]})
		}
	}
	return row
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func explainWindow(ctx context.Context, db *duck.DB, r *checks.Replay, values []string, ex *Explanation, sourceLoc string) error {
	ex.Kind, ex.TimeZone = "window", r.Zone
	ex.Key = append(ex.Key, KeyPart{r.WindowColumn, values[0]})
	key := windowKey{}
	for i, g := range r.GroupBy {
		ex.Key = append(ex.Key, KeyPart{g, values[i+1]})
		key.Groups = append(key.Groups, KeyPart{g, values[i+1]})
	}
	// The window of the key, read as the sink's window column is.
	_, w, err := db.StringsFile(ctx, explainSQL, queries.ExplainWindowBounds, struct {
		Value, Edge, Zone string
		Size              int64
	}{values[0], r.WindowEdge, r.Zone, r.Window.Size.Micros()})
	if err != nil {
		return fmt.Errorf("%w: --key %q is not a timestamp: %w", spec.ErrInvalid, values[0], err)
	}
	if len(w) == 0 || w[0][0] == nil {
		return fmt.Errorf("%w: --key %q is not a timestamp (expected ISO 8601 such as 2026-11-26T03:00:00Z or 2026-11-26 03:00:00, or epoch milliseconds)", spec.ErrInvalid, values[0])
	}
	ex.Window = &ExplainWindow{Start: *w[0][2], End: *w[0][3], Assigner: r.Window.String()}
	key.End = *w[0][1]
	data := struct {
		Key                     windowKey
		Groups                  []string
		Aggregates              []checks.ReplayAggregate
		SourceLocation, SinkLoc string
	}{key, r.GroupBy, r.Aggregates, sourceLoc, r.SinkLocation}

	// Expected values and source events.
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

	// Sink rows.
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
	// The columns shown on their own are not repeated among the values.
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

	// Source events of the window and group, with every window they
	// belong to.
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

	// The verdict and the restart that explains it, by the rules of the
	// replay checks (explain/window_verdict.sql).
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
