package checks

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/spec"
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
//	                 typed DECIMAL(38,s)>, __events BIGINT, __first_row BIGINT
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
	// the larger scale of the source column and the sink column.
	Type string
	agg  spec.Aggregate
}

// Columns lists the aggregate sink columns.
func (r *Replay) Columns() []string {
	out := make([]string, len(r.Aggregates))
	for i, a := range r.Aggregates {
		out[i] = a.Column
	}
	return out
}

// KeyColumns are the sink's logical key for key_checkpoint_conflicts: the
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
var ErrTime = errors.New("checks: bad timestamp")

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
	if err := db.Exec(ctx, fmt.Sprintf("SELECT timezone(%s, TIMESTAMP '2000-01-01')", duck.Literal(r.Zone))); err != nil {
		return nil, nil, fmt.Errorf("%w: time_zone %q is not a zone DuckDB knows (use an IANA name such as Europe/Berlin): %w", spec.ErrInvalid, r.Zone, err)
	}
	tc, err := readColumns(ctx, db)
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
	src, sink := tc.types["source"], tc.types["sink"]

	var notes []string
	// Aggregate types: exact decimals with the scale both sides need.
	for _, a := range rp.Aggregates {
		scale := 0
		if a.Func != "count" {
			sc, _, err := measureDigits(ctx, db, SourceTable, a.Arg, src[a.Arg])
			if err != nil {
				return nil, nil, fmt.Errorf("aggregate %s = %s: %w", a.Column, a, err)
			}
			scale = sc
		}
		sc, _, err := measureDigits(ctx, db, SinkTable, a.Column, sink[a.Column])
		if err != nil {
			return nil, nil, fmt.Errorf("aggregate %s = %s: %w", a.Column, a, err)
		}
		scale = max(scale, sc)
		r.Aggregates = append(r.Aggregates, ReplayAggregate{Column: a.Column, Expr: a.String(), Type: fmt.Sprintf("DECIMAL(%d,%d)", maxPrecision, scale), agg: a})
	}
	// Group columns of different types are compared as text.
	groupExpr := map[string]string{}
	for _, g := range rp.GroupBy {
		groupExpr[g] = "%s"
		if src[g] != sink[g] {
			groupExpr[g] = "CAST(%s AS VARCHAR)"
			notes = append(notes, fmt.Sprintf("group column %s is %s in the source and %s in the sink: compared as text", g, src[g], sink[g]))
		}
	}

	// Every timestamp column must be readable.
	stamps := []struct{ table, col, typ, field string }{
		{SourceTable, rp.EventTime, src[rp.EventTime], "reperform.event_time"},
		{SinkTable, r.WindowColumn, sink[r.WindowColumn], "reperform.window_" + r.WindowEdge},
	}
	if s.Watermark != "" {
		stamps = append(stamps, struct{ table, col, typ, field string }{SinkTable, s.Watermark, sink[s.Watermark], "watermark"})
	}
	for _, st := range stamps {
		n, err := checkInstants(ctx, db, st.table, st.col, st.typ, r.Zone)
		if err != nil {
			return nil, nil, err
		}
		if n > 0 {
			notes = append(notes, fmt.Sprintf("%s %s: %d value(s) written without a zone, read as wall-clock time in %s", map[string]string{SourceTable: "source", SinkTable: "sink"}[st.table], st.col, n, r.Zone))
		}
	}
	notes = append(notes, fmt.Sprintf("windows: %s, assigned on UTC instants as Flink's event-time window assigners do (epoch-aligned plus offset; start inclusive, end exclusive); zone-less timestamps are read in %s", r.Window, r.Zone))

	if err := createEvents(ctx, db, r, src, groupExpr); err != nil {
		return nil, nil, err
	}
	if n, err := db.Count(ctx, fmt.Sprintf("SELECT count(*) FROM source WHERE %s IS NULL", duck.Ident(rp.EventTime))); err != nil {
		return nil, nil, err
	} else if n > 0 {
		notes = append(notes, fmt.Sprintf("%d source row(s) have no event time: they belong to no window and are not re-performed", n))
	}
	if err := createExpected(ctx, db, r); err != nil {
		return nil, nil, err
	}
	if err := createReplaySink(ctx, db, r, sink, groupExpr); err != nil {
		return nil, nil, err
	}
	return r, notes, nil
}

// instant renders a SQL expression turning column col (DuckDB type typ)
// into a TIMESTAMPTZ (see PrepareReplay for the rules). With try, a value
// that cannot be read gives NULL instead of an error.
func instant(col, typ, zone string, try bool) string {
	cast := "CAST"
	if try {
		cast = "TRY_CAST"
	}
	z := duck.Literal(zone)
	switch {
	case typ == "TIMESTAMP WITH TIME ZONE":
		return col
	case strings.HasPrefix(typ, "TIMESTAMP") || typ == "DATE":
		return fmt.Sprintf("timezone(%s, CAST(%s AS TIMESTAMP))", z, col)
	case typ == "BIGINT" || typ == "INTEGER" || typ == "HUGEINT" || typ == "UBIGINT":
		return fmt.Sprintf("make_timestamptz(%s(%s AS BIGINT) * 1000)", cast, col)
	}
	t := fmt.Sprintf("trim(CAST(%s AS VARCHAR))", col)
	return fmt.Sprintf(`CASE WHEN regexp_full_match(%[1]s, '\d{10,}') THEN make_timestamptz(%[2]s(%[1]s AS BIGINT) * 1000)
	  WHEN regexp_matches(%[1]s, '\d:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?)$') THEN %[2]s(%[1]s AS TIMESTAMPTZ)
	  ELSE timezone(%[3]s, %[2]s(%[1]s AS TIMESTAMP)) END`, t, cast, z)
}

// zoneless renders a condition: the value of col carries no zone or offset.
func zoneless(col, typ string) string {
	switch {
	case typ == "TIMESTAMP WITH TIME ZONE":
		return "FALSE"
	case strings.HasPrefix(typ, "TIMESTAMP") || typ == "DATE":
		return "TRUE"
	case typ == "VARCHAR":
		t := fmt.Sprintf("trim(%s)", col)
		return fmt.Sprintf(`(NOT regexp_full_match(%[1]s, '\d{10,}') AND NOT regexp_matches(%[1]s, '\d:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?)$'))`, t)
	}
	return "FALSE"
}

// checkInstants fails with ErrTime naming the first value of col that is
// not a timestamp, and returns how many values carry no zone.
func checkInstants(ctx context.Context, db *duck.DB, table, col, typ, zone string) (int64, error) {
	c := duck.Ident(col)
	switch {
	case typ == "VARCHAR", typ == "TIMESTAMP WITH TIME ZONE", strings.HasPrefix(typ, "TIMESTAMP"), typ == "DATE",
		typ == "BIGINT", typ == "INTEGER", typ == "HUGEINT", typ == "UBIGINT":
	default:
		return 0, fmt.Errorf("%w: column %s is %s; a timestamp column must be a timestamp, a date, epoch milliseconds or text", ErrColumn, col, typ)
	}
	msg, bad, err := load.BadValue(ctx, db, table, col, fmt.Sprintf("%s IS NOT NULL AND trim(CAST(%s AS VARCHAR)) <> '' AND (%s) IS NULL", c, c, instant(c, typ, zone, true)))
	if err != nil {
		return 0, err
	}
	if bad {
		side := map[string]string{SourceTable: "source", SinkTable: "sink"}[table]
		return 0, fmt.Errorf("%w: %s in the %s is not a timestamp (expected ISO 8601 such as 2026-11-26T03:00:00Z or 2026-11-26 03:00:00, or epoch milliseconds)", ErrTime, msg, side)
	}
	return db.Count(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NOT NULL AND %s", duck.Ident(table), c, zoneless(c, typ)))
}

func createEvents(ctx context.Context, db *duck.DB, r *Replay, src map[string]string, groupExpr map[string]string) error {
	size, off := r.Window.Size.Micros(), r.Window.Offset.Micros()
	slide := size
	if r.Window.Sliding() {
		slide = r.Window.Slide.Micros()
	}
	n := (size + slide - 1) / slide
	var sel []string
	for _, g := range r.GroupBy {
		sel = append(sel, fmt.Sprintf(groupExpr[g], duck.Ident(g))+" AS "+duck.Ident(g))
	}
	// Each aggregated column once: as an exact decimal wide enough for
	// every sum/min/max over it (each aggregate's type has at least the
	// source column's scale, so the cast back is exact), else as loaded.
	args := map[string]bool{}
	scale := map[string]int{}
	for _, a := range r.Aggregates {
		if a.agg.Func != "count" {
			var p, sc int
			fmt.Sscanf(a.Type, "DECIMAL(%d,%d)", &p, &sc)
			if old, ok := scale[a.agg.Arg]; !ok || sc > old {
				scale[a.agg.Arg] = sc
			}
		}
	}
	for _, a := range r.Aggregates {
		arg := a.agg.Arg
		if arg == "*" || args[arg] || contains(r.GroupBy, arg) {
			continue
		}
		args[arg] = true
		if sc, ok := scale[arg]; ok {
			sel = append(sel, fmt.Sprintf("CAST(trim(CAST(%s AS VARCHAR)) AS DECIMAL(%d,%d)) AS %s", duck.Ident(arg), maxPrecision, sc, duck.Ident(arg)))
		} else {
			sel = append(sel, duck.Ident(arg))
		}
	}
	extra := ""
	if len(sel) > 0 {
		extra = ", " + strings.Join(sel, ", ")
	}
	q := fmt.Sprintf(`CREATE OR REPLACE TABLE %[1]s AS
WITH ev AS (
    SELECT __row, __file, __line, %[2]s AS __event_time%[3]s FROM source
), us AS (
    SELECT *, epoch_us(__event_time) AS __ts,
           epoch_us(__event_time) - (((epoch_us(__event_time) - %[4]d) %% %[5]d + %[5]d) %% %[5]d) AS __last_start
    FROM ev WHERE __event_time IS NOT NULL
), w AS (
    SELECT *, __last_start - __k * %[5]d AS __ws FROM us CROSS JOIN range(0, %[6]d) AS t(__k)
)
SELECT __row, __file, __line, __event_time,
       make_timestamptz(__ws) AS __window_start, make_timestamptz(__ws + %[7]d) AS __window_end%[8]s
FROM w WHERE __ws > __ts - %[7]d`,
		duck.Ident(EventsTable), instant(duck.Ident(r.EventTime), src[r.EventTime], r.Zone, false), extra,
		off, slide, n, size, colsOf(r.GroupBy, args))
	r.SQL = append(r.SQL, q)
	return db.Exec(ctx, q)
}

func colsOf(groups []string, args map[string]bool) string {
	var b strings.Builder
	for _, g := range groups {
		b.WriteString(", " + duck.Ident(g))
	}
	var names []string
	for a := range args {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		b.WriteString(", " + duck.Ident(a))
	}
	return b.String()
}

func createExpected(ctx context.Context, db *duck.DB, r *Replay) error {
	var aggs []string
	for _, a := range r.Aggregates {
		var e string
		switch {
		case a.agg.Arg == "*":
			e = "count(*)"
		case a.agg.Func == "count" && a.agg.Distinct:
			e = fmt.Sprintf("count(DISTINCT %s)", duck.Ident(a.agg.Arg))
		default:
			e = fmt.Sprintf("%s(%s)", a.agg.Func, duck.Ident(a.agg.Arg))
		}
		aggs = append(aggs, fmt.Sprintf("CAST(%s AS %s) AS %s", e, a.Type, duck.Ident(a.Column)))
	}
	groups := ""
	for _, g := range r.GroupBy {
		groups += ", " + duck.Ident(g)
	}
	q := fmt.Sprintf(`CREATE OR REPLACE TABLE %s AS
SELECT __window_start, __window_end%s, %s, count(*) AS __events, min(__row) AS __first_row
FROM %s GROUP BY __window_start, __window_end%s`, duck.Ident(ExpectedTable), groups, strings.Join(aggs, ", "), duck.Ident(EventsTable), groups)
	r.SQL = append(r.SQL, q)
	return db.Exec(ctx, q)
}

func createReplaySink(ctx context.Context, db *duck.DB, r *Replay, sink map[string]string, groupExpr map[string]string) error {
	size := r.Window.Size.Micros()
	w := instant(duck.Ident(r.WindowColumn), sink[r.WindowColumn], r.Zone, false)
	start, end := fmt.Sprintf("make_timestamptz(epoch_us(%s) - %d)", w, size), w
	if r.WindowEdge == "start" {
		start, end = w, fmt.Sprintf("make_timestamptz(epoch_us(%s) + %d)", w, size)
	}
	sel := []string{"__row", "__file", "__line", start + " AS __window_start", end + " AS __window_end"}
	for _, g := range r.GroupBy {
		sel = append(sel, fmt.Sprintf(groupExpr[g], duck.Ident(g))+" AS "+duck.Ident(g))
	}
	for _, a := range r.Aggregates {
		sel = append(sel, fmt.Sprintf("CAST(trim(CAST(%s AS VARCHAR)) AS %s) AS %s", duck.Ident(a.Column), a.Type, duck.Ident(a.Column)))
	}
	if r.Checkpoint != "" {
		c := duck.Ident(r.Checkpoint)
		sel = append(sel, fmt.Sprintf("CAST(%s AS VARCHAR) AS __checkpoint", c), fmt.Sprintf("TRY_CAST(trim(CAST(%s AS VARCHAR)) AS BIGINT) AS __epoch", c))
	} else {
		sel = append(sel, "CAST(NULL AS VARCHAR) AS __checkpoint", "CAST(NULL AS BIGINT) AS __epoch")
	}
	if r.Watermark != "" {
		sel = append(sel, instant(duck.Ident(r.Watermark), sink[r.Watermark], r.Zone, false)+" AS __watermark")
	} else {
		sel = append(sel, "CAST(NULL AS TIMESTAMPTZ) AS __watermark")
	}
	if r.LastBy != "" {
		sel = append(sel, fmt.Sprintf("CAST(%s AS VARCHAR) AS __emission", duck.Ident(r.LastBy)))
	} else {
		sel = append(sel, "CAST(NULL AS VARCHAR) AS __emission")
	}
	part := "__window_end"
	for _, g := range r.GroupBy {
		part += ", " + duck.Ident(g)
	}
	// The emission that counts: the greatest last_by value, compared as a
	// number when it is one, else as text (ISO timestamps sort as text).
	compared := "TRUE"
	if r.LastBy != "" {
		compared = fmt.Sprintf("dense_rank() OVER (PARTITION BY %s ORDER BY TRY_CAST(trim(__emission) AS DECIMAL(38,9)) DESC NULLS LAST, __emission DESC NULLS LAST) = 1", part)
	}
	q := fmt.Sprintf(`CREATE OR REPLACE TABLE %s AS
SELECT *, %s AS __compared FROM (SELECT %s FROM sink)`, duck.Ident(ReplaySinkTable), compared, strings.Join(sel, ", "))
	r.SQL = append(r.SQL, q)
	return db.Exec(ctx, q)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func init() {
	// Template helpers of the replay checks (queries/1NN_*.sql).

	// restartof names the earliest restart that rewound a write of
	// checkpoint epoch expr (restored_checkpoint < epoch <= open_epoch);
	// NULL when none did.
	funcs["restartof"] = func(epoch string) string {
		return fmt.Sprintf(`(SELECT r.restart FROM restarts AS r WHERE r.restored_checkpoint < (%[1]s) AND (%[1]s) <= r.open_epoch ORDER BY r.restart_time LIMIT 1)`, epoch)
	}
	// restartofkey is restartof, or else the earliest restart whose
	// replayed interval [restored_checkpoint_time, restart_time) holds
	// events of the key of alias (output columns window_end and the group
	// columns; an incrementing sink counts those events twice).
	funcs["restartofkey"] = func(epoch, alias string, groups []string) string {
		ms := []string{"ev.__window_end = " + alias + ".window_end"}
		for _, g := range groups {
			ms = append(ms, qual("ev", g)+" IS NOT DISTINCT FROM "+qual(alias, g))
		}
		m := strings.Join(ms, " AND ")
		return fmt.Sprintf(`(SELECT r.restart FROM restarts AS r
	WHERE (r.restored_checkpoint < (%[1]s) AND (%[1]s) <= r.open_epoch)
	   OR EXISTS (SELECT 1 FROM replay_events AS ev WHERE %[2]s
	              AND ev.__event_time >= r.restored_checkpoint_time AND ev.__event_time < r.restart_time)
	ORDER BY r.restart_time LIMIT 1)`, epoch, m)
	}
	// rowtext renders one replay_sink row for the evidence:
	// "revenue=12.50 events=3 checkpoint=98 emission=2 at sink.csv:4".
	funcs["rowtext"] = func(alias string, r *Replay) string {
		var parts []string
		for _, a := range r.Aggregates {
			parts = append(parts, fmt.Sprintf("'%s=' || coalesce(CAST(%s AS VARCHAR), 'NULL')", strings.ReplaceAll(a.Column, "'", "''"), qual(alias, a.Column)))
		}
		if r.Checkpoint != "" {
			parts = append(parts, fmt.Sprintf("'checkpoint=' || coalesce(%s.__checkpoint, 'NULL')", alias))
		}
		if r.LastBy != "" {
			parts = append(parts, fmt.Sprintf("'emission=' || coalesce(%s.__emission, 'NULL')", alias))
		}
		parts = append(parts, fmt.Sprintf("'at ' || %s.__file || ':' || %s.__line", alias, alias))
		return "(" + strings.Join(parts, " || ' ' || ") + ")"
	}
}
