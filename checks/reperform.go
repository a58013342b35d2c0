package checks

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
)

// Tables of the re-performance of a windowed sink, created by
// PrepareReplay next to source and sink and read by the replay checks
// (queries/1NN_*.sql) and by `reconcile explain`.
//
//	replay_events  one row per source event and window it belongs to
//	               (several for sliding windows):
//	                 __row, __file, __line   provenance of the source row
//	                 __event_time TIMESTAMPTZ the event's instant
//	                 __window_start, __window_end TIMESTAMPTZ  [start, end)
//	                 <group_by columns>, <aggregated source columns>
//	expected       one row per window and group recomputed from the events:
//	                 __window_start, __window_end, <group_by columns>,
//	                 <one column per aggregate, named as the sink column,
//	                 typed DECIMAL(38,s)>, __events BIGINT, __source_events BIGINT
//	replay_sink    one row per sink row:
//	                 __row, __file, __line, __window_start, __window_end,
//	                 <group_by columns>, <aggregate columns as DECIMAL(38,s)>,
//	                 __checkpoint VARCHAR (as written), __epoch BIGINT (the
//	                 checkpoint id as a number), __watermark TIMESTAMPTZ,
//	                 __emission VARCHAR (the last_by value), __compared
//	                 BOOLEAN (the row is the key's emission that counts)
//	restarts       see LoadRestarts
const (
	EventsTable     = "replay_events"
	ExpectedTable   = "expected"
	ReplaySinkTable = "replay_sink"
	RestartsTable   = "restarts"
)

// Replay is what the replay check templates see as .Replay.
type Replay struct {
	// GroupBy are the key columns beside the window, in both inputs.
	GroupBy []string
	// Aggregates are the re-performed sink columns.
	Aggregates []ReplayAggregate
	// Window is the assigner; WindowColumn the sink column naming a row's
	// window and WindowEdge "end" or "start".
	Window       spec.Window
	WindowColumn string
	WindowEdge   string
	// EventTime is the source column of event timestamps.
	EventTime string
	// Watermark, LastBy and Checkpoint are the sink columns ("" if not
	// given).
	Watermark, LastBy, Checkpoint string
	// Zone is the zone zone-less timestamps were read in.
	Zone string
	// SinkLocation is the sink's location form (Params.SinkLocation).
	SinkLocation string
	// Restarts is the number of rows of table restarts (LoadRestarts).
	Restarts int
	// SQL are the statements that created the replay tables, in order, for
	// the evidence (re-performance of the re-performance).
	SQL []string
}

// ReplayAggregate is one sink column and how it is recomputed.
type ReplayAggregate struct {
	// Column is the sink column; the same name holds the recomputed value
	// in table expected.
	Column string
	// Expr is the aggregate as the spec wrote it, for the evidence.
	Expr string
	// Type is the exact type both sides are compared in: DECIMAL(38,s), s
	// (Scale) the larger scale of the source column and the sink column.
	Type  string
	Scale int
	// Agg is the aggregate as parsed from the spec.
	Agg spec.Aggregate
}

// Columns lists the aggregate sink columns.
func (r *Replay) Columns() []string {
	out := make([]string, len(r.Aggregates))
	for i, a := range r.Aggregates {
		out[i] = a.Column
	}
	return out
}

// KeyColumns are the sink's logical key for the checkpoint-conflict check: the
// window column, the group columns and, with emission last_by, the
// emission (two emissions of one window are not a replay; the same
// emission under two checkpoints is).
func (r *Replay) KeyColumns() []string {
	k := append([]string{r.WindowColumn}, r.GroupBy...)
	if r.LastBy != "" {
		k = append(k, r.LastBy)
	}
	return k
}

// ErrTime is returned by PrepareReplay when a timestamp cannot be read; the
// message names file:line, column and value.
var ErrTime = fault.Runtime.New("checks: bad timestamp")

// PrepareReplay re-performs a windowed sink: it assigns every source event
// to its windows on UTC instants and recomputes each window and group into
// table expected, and prepares replay_sink (see the table layouts above).
// It returns the Replay the templates see and notes for the evidence.
//
// Window assignment is Apache Flink's (TimeWindow.getWindowStartWithOffset:
// start = ts - (ts - offset) mod size, with a non-negative remainder;
// SlidingEventTimeWindows: every start = lastStart - k·slide with start >
// ts - size), in integer microseconds since the Unix epoch, so neither the
// process's nor the session's time zone, nor a DST change, moves a window
// boundary. Timestamps are read as follows: TIMESTAMPTZ as is; text with a
// zone or offset (Z, +01:00) as that instant; integers and all-digit text
// as epoch milliseconds (Flink's convention); TIMESTAMP, DATE and zone-less
// text as wall-clock time in the spec's zone (DuckDB/ICU resolves a
// wall-clock time that a DST change skips or repeats to the later offset's
// reading, as a note says).
//
// Errors: ErrColumn (a named column is missing or an aggregate is not
// numeric), ErrValue (an aggregate value is not a decimal number), ErrTime,
// spec.ErrInvalid (an unknown time zone), or a DuckDB error.
func PrepareReplay(ctx context.Context, db *duck.DB, s *spec.Spec) (*Replay, []string, error) {
	rp := s.Reperform
	r := &Replay{GroupBy: rp.GroupBy, Window: rp.Window, EventTime: rp.EventTime,
		Watermark: s.Watermark, LastBy: s.LastByColumn(), Checkpoint: s.Checkpoint, Zone: s.Zone()}
	r.WindowColumn, r.WindowEdge = rp.WindowEnd, "end"
	if rp.WindowStart != "" {
		r.WindowColumn, r.WindowEdge = rp.WindowStart, "start"
	}
	if err := db.ExecFile(ctx, replaySQL, queries.ReplayCheckZone, struct{ Zone string }{r.Zone}); err != nil {
		return nil, nil, fmt.Errorf("%w: time_zone %q is not a zone DuckDB knows (use an IANA name such as Europe/Berlin): %w", spec.ErrInvalid, r.Zone, err)
	}
	if err := reservedReplayNames(s, r); err != nil {
		return nil, nil, err
	}
	src, sink, err := replayColumnTypes(ctx, db, s, r)
	if err != nil {
		return nil, nil, err
	}
	if r.Aggregates, err = replayAggregates(ctx, db, rp, src, sink); err != nil {
		return nil, nil, err
	}
	// Group columns of different types are compared as text.
	var notes []string
	asText := map[string]bool{}
	for _, g := range rp.GroupBy {
		if src[g] != sink[g] {
			asText[g] = true
			notes = append(notes, fmt.Sprintf("group column %s is %s in the source and %s in the sink: compared as text", g, src[g], sink[g]))
		}
	}
	// A TIMESTAMP WITH TIME ZONE event time is an instant already: only
	// infinity is refused, and that is found in the aggregation (an
	// infinite event falls in a window without a start: replay_events.sql)
	// rather than by a scan of every event beforehand (measured, 10 M
	// Parquet events: 0.13 s).
	deferFinite := src[rp.EventTime] == "TIMESTAMP WITH TIME ZONE"
	stampNotes, err := checkReplayStamps(ctx, db, s, r, src, sink, deferFinite)
	if err != nil {
		return nil, nil, err
	}
	notes = append(notes, stampNotes...)
	notes = append(notes, fmt.Sprintf("windows: %s, assigned on UTC instants as Flink's event-time window assigners do (epoch-aligned plus offset; start inclusive, end exclusive); zone-less timestamps are read in %s", r.Window, r.Zone))
	tableNotes, err := createReplayTables(ctx, db, r, src, sink, asText, deferFinite)
	if err != nil {
		return nil, nil, err
	}
	return r, append(notes, tableNotes...), nil
}

// replayColumnTypes returns the DuckDB types of the source's and the
// sink's columns (by name), once every column the re-performance names is
// known to be there (else ErrColumn, every missing column at once).
func replayColumnTypes(ctx context.Context, db *duck.DB, s *spec.Spec, r *Replay) (src, sink map[string]string, err error) {
	rp := s.Reperform
	tc, err := readColumns(ctx, db, false)
	if err != nil {
		return nil, nil, err
	}
	tc.need("source", "reperform.event_time", rp.EventTime)
	tc.need("source", "reperform.group_by", rp.GroupBy...)
	tc.need("sink", "reperform.group_by", rp.GroupBy...)
	tc.need("sink", "reperform.window_"+r.WindowEdge, r.WindowColumn)
	for _, a := range rp.Aggregates {
		tc.need("source", "reperform.aggregates", a.Arg)
		tc.need("sink", "reperform.aggregates", a.Column)
	}
	tc.need("sink", "watermark", s.Watermark)
	tc.need("sink", "emission.last_by", r.LastBy)
	tc.need("sink", "checkpoint", s.Checkpoint)
	if err := tc.err(); err != nil {
		return nil, nil, err
	}
	return tc.types["source"], tc.types["sink"], nil
}

// replayAggregates types each aggregate as an exact decimal with the
// scale both sides need: its argument's in the source (none for a count)
// and its column's in the sink (measureDigits).
func replayAggregates(ctx context.Context, db *duck.DB, rp *spec.Reperform, src, sink map[string]string) ([]ReplayAggregate, error) {
	var out []ReplayAggregate
	for _, a := range rp.Aggregates {
		scale := 0
		if a.Func != "count" {
			sc, _, err := measureDigits(ctx, db, SourceTable, a.Arg, src[a.Arg])
			if err != nil {
				return nil, fmt.Errorf("aggregate %s = %s: %w", a.Column, a, err)
			}
			scale = sc
		}
		sc, _, err := measureDigits(ctx, db, SinkTable, a.Column, sink[a.Column])
		if err != nil {
			return nil, fmt.Errorf("aggregate %s = %s: %w", a.Column, a, err)
		}
		scale = max(scale, sc)
		out = append(out, ReplayAggregate{Column: a.Column, Expr: a.String(), Type: decimalType(maxPrecision, scale), Scale: scale, Agg: a})
	}
	return out, nil
}

// checkReplayStamps checks that every timestamp column the re-performance
// reads is readable (checkInstants): the event time and the window edge
// finite too (infinity falls in no window; for an event time of
// TIMESTAMP WITH TIME ZONE, deferFinite, that is left to
// createReplayTables), the watermark not (-infinity is one before any
// event). It returns a note for each column with values written without a
// zone.
func checkReplayStamps(ctx context.Context, db *duck.DB, s *spec.Spec, r *Replay, src, sink map[string]string, deferFinite bool) ([]string, error) {
	type stamp struct {
		table, col, typ, field string
		finite                 bool
	}
	stamps := []stamp{
		{SourceTable, r.EventTime, src[r.EventTime], "reperform.event_time", !deferFinite},
		{SinkTable, r.WindowColumn, sink[r.WindowColumn], "reperform.window_" + r.WindowEdge, true},
	}
	if s.Watermark != "" {
		stamps = append(stamps, stamp{SinkTable, s.Watermark, sink[s.Watermark], "watermark", false})
	}
	var notes []string
	for _, st := range stamps {
		n, err := checkInstants(ctx, db, st.table, st.col, st.typ, r.Zone, st.finite)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			notes = append(notes, fmt.Sprintf("%s %s: %d value(s) written without a zone, read as wall-clock time in %s", map[string]string{SourceTable: "source", SinkTable: "sink"}[st.table], st.col, n, r.Zone))
		}
	}
	return notes, nil
}

// createReplayTables makes the re-performance's tables — the events, the
// expected windows and the sink's rows (asText: the group columns compared
// as text) — and returns a note when source rows have no event time. With
// deferFinite, a window without a start (an infinite event time) is an
// ErrTime naming the value (checkInstants).
func createReplayTables(ctx context.Context, db *duck.DB, r *Replay, src, sink map[string]string, asText map[string]bool, deferFinite bool) ([]string, error) {
	var notes []string
	if err := createEvents(ctx, db, r, src, asText); err != nil {
		return nil, err
	}
	if n, err := db.CountFile(ctx, replaySQL, queries.ReplayNullEventTimes, struct{ Col string }{r.EventTime}); err != nil {
		return nil, err
	} else if n > 0 {
		notes = append(notes, fmt.Sprintf("%d source row(s) have no event time: they belong to no window and are not re-performed", n))
	}
	if err := createExpected(ctx, db, r); err != nil {
		return nil, err
	}
	if deferFinite {
		if n, err := db.CountFile(ctx, replaySQL, queries.ReplayWindowlessEvents, struct{ Table string }{ExpectedTable}); err != nil {
			return nil, err
		} else if n > 0 {
			if _, err := checkInstants(ctx, db, SourceTable, r.EventTime, src[r.EventTime], r.Zone, true); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %d window(s) of the source's events have no start, though every event time is finite", ErrTime, n)
		}
	}
	if err := createReplaySink(ctx, db, r, sink, asText); err != nil {
		return nil, err
	}
	return notes, nil
}

// replayOwnColumns are the names the replay tables and the replay checks
// and explain statements give their own columns and read back (queries/replay,
// queries/1NN_*.sql, queries/explain), besides the provenance columns
// __file, __line and __row that every input reserves, and the prefix of
// the aggregates' (__aggregate_0, …).
var replayOwnColumns = []string{"__aggregate_*", "__checkpoint", "__compared", "__emission", "__epoch", "__event_time", "__events",
	"__first_row", "__k", "__last_start", "__last_window", "__loc", "__nearest_micros", "__nearest_relation", "__nearest_replayed",
	"__nearest_restart", "__sink_rows", "__source_events", "__ts", "__watermark", "__window_end", "__window_start",
	"__window_start_us", "__windows", "__ws",
	// reperformance_mismatches' own, compared in its SQL (a group column of
	// such a name stopped it on a conversion error)
	"each_row_equals_expected", "sum_above", "sum_equals_expected"}

// reservedReplayNames refuses (ErrColumn, a usage error) a column the
// re-performance reads that has the name of one of its own columns
// (replayOwnColumns): an input column __window_start_us was taken for the
// window's start, and others stopped the run on a binder error. Other
// names starting with __ (a Kafka topic's __timestamp, __partition,
// __header_<name>) are read as any column.
func reservedReplayNames(s *spec.Spec, r *Replay) error {
	rp := s.Reperform
	type named struct{ field, col string }
	cols := []named{{"reperform.event_time", rp.EventTime}, {"reperform.window_" + r.WindowEdge, r.WindowColumn},
		{"watermark", s.Watermark}, {"emission.last_by", r.LastBy}, {"checkpoint", s.Checkpoint}}
	for _, g := range rp.GroupBy {
		cols = append(cols, named{"reperform.group_by", g})
	}
	for _, a := range rp.Aggregates {
		cols = append(cols, named{"reperform.aggregates", a.Column}, named{"reperform.aggregates", a.Arg})
	}
	for _, c := range cols {
		for _, own := range replayOwnColumns {
			prefix, wild := strings.CutSuffix(own, "*")
			if c.col == own || wild && strings.HasPrefix(c.col, prefix) {
				return fmt.Errorf("%w: %s: column %q has the name of a column of the re-performance's own tables; rename it (rename: in the spec)", ErrColumn, c.field, c.col)
			}
		}
	}
	return nil
}

// epochMillisTypes are the integer types rules/instant.sql reads as epoch
// milliseconds (the same list is in that file).
var epochMillisTypes = []string{"BIGINT", "INTEGER", "HUGEINT", "UBIGINT"}

// checkInstants fails with ErrTime naming the first value of col that is
// not a timestamp (with finite, or is infinity or -infinity), and returns
// how many values carry no zone.
func checkInstants(ctx context.Context, db *duck.DB, table, col, typ, zone string, finite bool) (int64, error) {
	switch {
	case typ == "VARCHAR", typ == "TIMESTAMP WITH TIME ZONE", strings.HasPrefix(typ, "TIMESTAMP"), typ == "DATE",
		slices.Contains(epochMillisTypes, typ):
	default:
		return 0, fmt.Errorf("%w: column %s is %s; a timestamp column must be a timestamp, a date, epoch milliseconds or text", ErrColumn, col, typ)
	}
	data := struct {
		Table, Col, Type, Zone string
		Finite                 bool
	}{table, col, typ, zone, finite}
	cond, err := replaySQL.SQL(queries.ReplayNotInstant, data)
	if err != nil {
		return 0, err
	}
	msg, bad, err := load.BadValue(ctx, db, table, col, cond)
	if err != nil {
		return 0, err
	}
	side := map[string]string{SourceTable: "source", SinkTable: "sink"}[table]
	if bad {
		return 0, fmt.Errorf("%w: %s in the %s is not a timestamp of a point in time (expected ISO 8601 such as 2026-11-26T03:00:00Z or 2026-11-26 03:00:00, or epoch milliseconds; infinity is none)", ErrTime, msg, side)
	}
	if err := checkWallClock(ctx, db, table, side, col, typ, zone, "to be re-performed in windows"); err != nil {
		return 0, err
	}
	return db.CountFile(ctx, replaySQL, queries.ReplayZonelessCount, data)
}

// replayGroup is a group column of the replay tables: compared as text
// when the two inputs type it differently.
type replayGroup struct {
	Name   string
	AsText bool
}

func replayGroups(r *Replay, asText map[string]bool) []replayGroup {
	out := make([]replayGroup, len(r.GroupBy))
	for i, g := range r.GroupBy {
		out[i] = replayGroup{Name: g, AsText: asText[g]}
	}
	return out
}

// exec renders statement id of set and runs it, keeping its text for the
// evidence in r.SQL.
func (r *Replay) exec(ctx context.Context, db *duck.DB, id string, data any) error {
	q, err := replaySQL.SQL(id, data)
	if err != nil {
		return err
	}
	r.SQL = append(r.SQL, q)
	return db.Exec(ctx, q)
}

func createEvents(ctx context.Context, db *duck.DB, r *Replay, src map[string]string, asText map[string]bool) error {
	size, off := r.Window.Size.Micros(), r.Window.Offset.Micros()
	slide := size
	if r.Window.Sliding() {
		slide = r.Window.Slide.Micros()
	}
	// Each aggregated column once: with the exact decimal wide enough for
	// every sum/min/max over it (each aggregate's type has at least the
	// source column's scale, so the cast of a result is exact).
	scale := map[string]int{}
	for _, a := range r.Aggregates {
		if a.Agg.Func != "count" {
			if old, ok := scale[a.Agg.Arg]; !ok || a.Scale > old {
				scale[a.Agg.Arg] = a.Scale
			}
		}
	}
	type arg struct {
		Name, Decimal string
		Exact         bool
	}
	var args []arg
	var sorted []string
	seen := map[string]bool{}
	for _, a := range r.Aggregates {
		name := a.Agg.Arg
		if name == "*" || seen[name] || slices.Contains(r.GroupBy, name) {
			continue
		}
		seen[name] = true
		x := arg{Name: name}
		if sc, ok := scale[name]; ok {
			x.Decimal = decimalType(maxPrecision, sc)
			// A DECIMAL or integer column that converts to the exact
			// type without a value changing is aggregated as stored
			// (DuckDB's sum, min and max of it are exact; expected.sql
			// casts each result); text (or anything else) is read as
			// the exact type from its trimmed text.
			x.Exact = exactNumber(src[name], sc)
		}
		args = append(args, x)
		sorted = append(sorted, name)
	}
	sort.Strings(sorted)
	return r.exec(ctx, db, queries.ReplayReplayEvents, struct {
		Table, EventTime, EventType, Zone string
		Groups                            []replayGroup
		Args                              []arg
		SortedArgs                        []string
		Offset, Slide, Windows, Size      int64
	}{EventsTable, r.EventTime, src[r.EventTime], r.Zone, replayGroups(r, asText), args, sorted,
		off, slide, (size + slide - 1) / slide, size})
}

func createExpected(ctx context.Context, db *duck.DB, r *Replay) error {
	return r.exec(ctx, db, queries.ReplayExpected, struct {
		Table, Events string
		Groups        []string
		Aggregates    []ReplayAggregate
		Size          int64
		Tumbling      bool
	}{ExpectedTable, EventsTable, r.GroupBy, r.Aggregates, r.Window.Size.Micros(), !r.Window.Sliding()})
}

// sinkAggregate is one aggregate column of the sink as replay_sink.sql
// reads it: Exact when the column converts to Type without a value changing
// (exactNumber), else read from its text.
type sinkAggregate struct {
	Column, Type string
	Exact        bool
}

func createReplaySink(ctx context.Context, db *duck.DB, r *Replay, sink map[string]string, asText map[string]bool) error {
	aggs := make([]sinkAggregate, len(r.Aggregates))
	for i, a := range r.Aggregates {
		aggs[i] = sinkAggregate{Column: a.Column, Type: a.Type, Exact: exactNumber(sink[a.Column], a.Scale)}
	}
	return r.exec(ctx, db, queries.ReplayReplaySink, struct {
		Table, Window, WindowType, Edge, Zone string
		Size                                  int64
		Groups                                []replayGroup
		Aggregates                            []sinkAggregate
		Checkpoint, Watermark, WatermarkType  string
		LastBy                                string
	}{ReplaySinkTable, r.WindowColumn, sink[r.WindowColumn], r.WindowEdge, r.Zone, r.Window.Size.Micros(),
		replayGroups(r, asText), aggs, r.Checkpoint, r.Watermark, sink[r.Watermark], r.LastBy})
}

// exactNumber reports whether a column of DuckDB type typ converts to
// DECIMAL(38,scale) by a plain CAST without any value changing: an integer
// type (at most 39 digits: HUGEINT is not) or a DECIMAL whose scale is at
// most scale and whose integer digits fit.
func exactNumber(typ string, scale int) bool {
	if d := ducktype.IntegerDigits(strings.ToUpper(typ)); d > 0 && d <= 20 {
		return maxPrecision-scale >= 20
	}
	m := decimalTypeName.FindStringSubmatch(strings.ToUpper(typ))
	if m == nil {
		return false
	}
	p, _ := strconv.Atoi(m[1])
	s, _ := strconv.Atoi(m[2])
	return s <= scale && p-s <= maxPrecision-scale
}
