package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// ErrNoKey is returned by Explain when no source or sink row has the key
// (a usage error: the key was probably mistyped).
var ErrNoKey = errors.New("explain: no row has this key")

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
	ss, err := ins.load(ctx, "", io.Discard)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	db := ss.db
	params, _, err := checks.Prepare(ctx, db, columnsOf(s))
	if err != nil {
		return nil, err
	}
	ex := &Explanation{Kind: "record"}
	if rs != nil {
		ex.Restarts = rs.Restarts
	}
	if s.Reperform == nil {
		err = explainRecord(ctx, db, s, values, ex)
	} else {
		if _, _, err = prepareReplay(ctx, db, s, params, rs, nil); err != nil {
			return nil, err
		}
		err = explainWindow(ctx, db, params.Replay, values, ex)
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

// rows runs q and returns its rows as named values.
func rows(ctx context.Context, db *duck.DB, q string) ([]string, [][]*string, error) {
	return db.Strings(ctx, q)
}

func textMatch(alias string, cols, values []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = fmt.Sprintf("CAST(%s.%s AS VARCHAR) = %s", alias, duck.Ident(c), duck.Literal(values[i]))
	}
	if len(out) == 0 {
		return "TRUE"
	}
	return strings.Join(out, " AND ")
}

func explainRecord(ctx context.Context, db *duck.DB, s *spec.Spec, values []string, ex *Explanation) error {
	for i, c := range s.ID {
		ex.Key = append(ex.Key, KeyPart{c, values[i]})
	}
	cols, srcRows, err := rows(ctx, db, fmt.Sprintf("SELECT t.* EXCLUDE (__row), t.__file || ':' || t.__line AS __loc FROM source AS t WHERE %s ORDER BY t.__row", textMatch("t", s.ID, values)))
	if err != nil {
		return err
	}
	for _, r := range srcRows {
		ex.Source = append(ex.Source, plainRow(cols, r, ""))
	}
	cols, sinkRows, err := rows(ctx, db, fmt.Sprintf("SELECT t.* EXCLUDE (__row), t.__file || ':' || t.__line AS __loc FROM sink AS t WHERE %s ORDER BY t.__row", textMatch("t", s.ID, values)))
	if err != nil {
		return err
	}
	for _, r := range sinkRows {
		row := plainRow(cols, r, s.Checkpoint)
		row.NearestRestart = nearestByEpoch(ex.Restarts, row.Checkpoint)
		ex.Sink = append(ex.Sink, row)
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

func explainWindow(ctx context.Context, db *duck.DB, r *checks.Replay, values []string, ex *Explanation) error {
	ex.Kind, ex.TimeZone = "window", r.Zone
	ex.Key = append(ex.Key, KeyPart{r.WindowColumn, values[0]})
	for i, g := range r.GroupBy {
		ex.Key = append(ex.Key, KeyPart{g, values[i+1]})
	}
	// The window of the key, read as the sink's window column is.
	_, w, err := db.Strings(ctx, fmt.Sprintf(`SELECT window_start, window_end, strftime(window_start, '%%Y-%%m-%%dT%%H:%%M:%%SZ'), strftime(window_end, '%%Y-%%m-%%dT%%H:%%M:%%SZ')
FROM (SELECT CASE WHEN %[2]s = 'end' THEN make_timestamptz(epoch_us(t) - %[3]d) ELSE t END AS window_start,
             CASE WHEN %[2]s = 'end' THEN t ELSE make_timestamptz(epoch_us(t) + %[3]d) END AS window_end
      FROM (SELECT %[1]s AS t))`, instantOf(values[0], r.Zone), duck.Literal(r.WindowEdge), r.Window.Size.Micros()))
	if err != nil {
		return fmt.Errorf("%w: --key %q is not a timestamp: %w", spec.ErrInvalid, values[0], err)
	}
	if len(w) == 0 || w[0][0] == nil {
		return fmt.Errorf("%w: --key %q is not a timestamp", spec.ErrInvalid, values[0])
	}
	ex.Window = &ExplainWindow{Start: *w[0][2], End: *w[0][3], Assigner: r.Window.String()}
	end := fmt.Sprintf("TIMESTAMPTZ %s", duck.Literal(*w[0][1]))
	grp := func(alias string) string {
		out := []string{fmt.Sprintf("%s.__window_end = %s", alias, end)}
		for i, g := range r.GroupBy {
			out = append(out, fmt.Sprintf("CAST(%s.%s AS VARCHAR) = %s", alias, duck.Ident(g), duck.Literal(values[i+1])))
		}
		return strings.Join(out, " AND ")
	}

	// Expected values and source events.
	var aggs []string
	for _, a := range r.Aggregates {
		aggs = append(aggs, "e."+duck.Ident(a.Column))
	}
	cols, exp, err := rows(ctx, db, fmt.Sprintf("SELECT e.__events, %s FROM expected AS e WHERE %s", strings.Join(aggs, ", "), grp("e")))
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
	var sums []string
	for _, a := range r.Aggregates {
		sums = append(sums, fmt.Sprintf("CAST(sum(k.%s) FILTER (WHERE k.__compared) AS %s) AS %s", duck.Ident(a.Column), a.Type, duck.Ident(a.Column)))
	}
	cols, sum, err := rows(ctx, db, fmt.Sprintf("SELECT count(*) FILTER (WHERE k.__compared), %s FROM replay_sink AS k WHERE %s", strings.Join(sums, ", "), grp("k")))
	if err != nil {
		return err
	}
	compared, _ := strconv.Atoi(deref(sum[0][0]))
	for i := 1; i < len(cols); i++ {
		ex.SinkSum = append(ex.SinkSum, Value{cols[i], sum[0][i]})
	}
	cols, sinkRows, err := rows(ctx, db, fmt.Sprintf(`SELECT t.* EXCLUDE (__row), k.__checkpoint AS __checkpoint, strftime(k.__watermark, '%%Y-%%m-%%dT%%H:%%M:%%S.%%gZ') AS __watermark,
       k.__emission AS __emission, k.__compared AS __compared, t.__file || ':' || t.__line AS __loc
FROM replay_sink AS k JOIN sink AS t ON t.__row = k.__row WHERE %s ORDER BY k.__row`, grp("k")))
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
		for i, c := range cols {
			switch c {
			case "__checkpoint":
				x.Checkpoint = deref(row[i])
			case "__watermark":
				x.Watermark = strings.Replace(deref(row[i]), ".000Z", "Z", 1)
			case "__emission":
				x.Emission = deref(row[i])
			case "__compared":
				b := deref(row[i]) == "true"
				x.Compared = &b
			}
		}
		x.NearestRestart = nearestByEpoch(ex.Restarts, x.Checkpoint)
		ex.Sink = append(ex.Sink, x)
	}

	// Source events of the window and group, with every window they
	// belong to.
	cols, srcRows, err := rows(ctx, db, fmt.Sprintf(`SELECT t.* EXCLUDE (__row), strftime(v.__event_time, '%%Y-%%m-%%dT%%H:%%M:%%S.%%gZ') AS __event_time,
       (SELECT string_agg('[' || strftime(a.__window_start, '%%Y-%%m-%%dT%%H:%%M:%%SZ') || ', ' || strftime(a.__window_end, '%%Y-%%m-%%dT%%H:%%M:%%SZ') || ')', ' ' ORDER BY a.__window_start)
          FROM replay_events AS a WHERE a.__row = v.__row) AS __windows,
       t.__file || ':' || t.__line AS __loc
FROM replay_events AS v JOIN source AS t ON t.__row = v.__row WHERE %s ORDER BY v.__row`, grp("v")))
	if err != nil {
		return err
	}
	for _, row := range srcRows {
		x := plainRow(cols, row, "")
		for i, c := range cols {
			switch c {
			case "__event_time":
				x.EventTime = strings.Replace(deref(row[i]), ".000Z", "Z", 1)
			case "__windows":
				x.Windows = strings.Split(deref(row[i]), " [")
				for j := 1; j < len(x.Windows); j++ {
					x.Windows[j] = "[" + x.Windows[j]
				}
			}
		}
		if t, err := time.Parse(time.RFC3339Nano, x.EventTime); err == nil {
			x.NearestRestart = nearestByTime(ex.Restarts, t)
		}
		ex.Source = append(ex.Source, x)
	}

	// The verdict and the restart that explains it (the rules of the
	// replay checks: restartof / restartofkey).
	ex.Verdict = windowVerdict(ex, compared, len(ex.Sink))
	_, rr, err := rows(ctx, db, fmt.Sprintf(`SELECT (SELECT r.restart FROM restarts AS r
	WHERE (r.restored_checkpoint < m.first AND m.first <= r.open_epoch)
	   OR (NOT m.agrees AND EXISTS (SELECT 1 FROM replay_events AS ev WHERE %s AND ev.__event_time >= r.restored_checkpoint_time AND ev.__event_time < r.restart_time))
	ORDER BY r.restart_time LIMIT 1)
FROM (SELECT min(k.__epoch) FILTER (WHERE k.__compared) AS first, %s AS agrees FROM replay_sink AS k WHERE %s) AS m
WHERE m.first IS NOT NULL AND (NOT m.agrees OR %d > 1)`, grp("ev"), duck.Literal(strconv.FormatBool(agrees(ex))), grp("k"), compared))
	if err != nil {
		return err
	}
	if len(rr) == 1 && rr[0][0] != nil {
		ex.Restart = *rr[0][0]
	}
	return nil
}

// agrees reports whether the compared sink rows sum to the re-performed
// values.
func agrees(ex *Explanation) bool {
	if len(ex.Expected) != len(ex.SinkSum) {
		return false
	}
	for i := range ex.Expected {
		if deref(ex.Expected[i].Value) != deref(ex.SinkSum[i].Value) {
			return false
		}
	}
	return true
}

func windowVerdict(ex *Explanation, compared, all int) string {
	switch {
	case ex.Expected == nil && all == 0:
		return "no source event and no sink row"
	case ex.Expected == nil:
		return fmt.Sprintf("unexpected: %d sink row(s) for a window and group with no source event", all)
	case all == 0:
		return fmt.Sprintf("missing: %d source event(s), no sink row", ex.Window.Events)
	}
	eachRight := true
	for _, s := range ex.Sink {
		if s.Compared != nil && !*s.Compared {
			continue
		}
		vals := map[string]string{}
		for _, v := range s.Values {
			vals[v.Name] = deref(v.Value)
		}
		for _, e := range ex.Expected {
			if !decimalEqual(vals[e.Name], deref(e.Value)) {
				eachRight = false
			}
		}
	}
	superseded := ""
	if compared < all {
		superseded = fmt.Sprintf(" (%d earlier emission(s) superseded)", all-compared)
	}
	switch {
	case compared == 1 && agrees(ex):
		return "agrees: one row, equal to the re-performed value" + superseded
	case compared > 1 && eachRight:
		return fmt.Sprintf("duplicated: %d rows, each equal to the re-performed value; summed, the window shows %d times its value%s", compared, compared, superseded)
	case compared == 1:
		return "mismatch: one row, not equal to the re-performed value" + superseded
	default:
		return fmt.Sprintf("mismatch: %d rows that differ from the re-performed value%s", compared, superseded)
	}
}

// decimalEqual compares decimal texts numerically ("82" = "82.00").
func decimalEqual(a, b string) bool {
	na, nb := normDecimal(a), normDecimal(b)
	return na == nb
}

func normDecimal(s string) string {
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+"), "0")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "" || s == "." {
		return "0"
	}
	if neg {
		return "-" + s
	}
	return s
}

// instantOf renders a SQL TIMESTAMPTZ for a timestamp typed on the command
// line, by the rules of the replay (zone-less: in zone).
func instantOf(v, zone string) string {
	return fmt.Sprintf(`CASE WHEN regexp_matches(%[1]s, '\d:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?)$') THEN CAST(%[1]s AS TIMESTAMPTZ)
	ELSE timezone(%[2]s, CAST(%[1]s AS TIMESTAMP)) END`, duck.Literal(strings.TrimSpace(v)), duck.Literal(zone))
}

// nearestByEpoch names the restart whose restored checkpoint is closest to
// a sink row's checkpoint epoch, and how the row relates to it.
func nearestByEpoch(rs []restarts.Restart, epoch string) string {
	e, err := strconv.ParseInt(strings.TrimSpace(epoch), 10, 64)
	if err != nil || len(rs) == 0 {
		return ""
	}
	best := -1
	var bestD int64
	for i, r := range rs {
		if r.RestoredCheckpoint < 0 {
			continue
		}
		d := e - r.RestoredCheckpoint
		if d < 0 {
			d = -d
		}
		if best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return ""
	}
	r := rs[best]
	switch {
	case e <= r.RestoredCheckpoint:
		return fmt.Sprintf("%s: checkpoint %d is covered by the restored checkpoint (not replayed)", r.Label(), e)
	case e <= r.OpenEpoch:
		return fmt.Sprintf("%s: checkpoint %d is after the restored checkpoint and could be written before the restart — rolled back in state, not in the sink", r.Label(), e)
	default:
		return fmt.Sprintf("%s: checkpoint %d was written after the restart", r.Label(), e)
	}
}

// nearestByTime names the restart closest in time to a source event and
// whether the event lies in its replayed interval.
func nearestByTime(rs []restarts.Restart, t time.Time) string {
	if len(rs) == 0 {
		return ""
	}
	sorted := append([]restarts.Restart(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool {
		return absDur(sorted[i].Time.Sub(t)) < absDur(sorted[j].Time.Sub(t))
	})
	r := sorted[0]
	rel := "after"
	if t.Before(r.Time) {
		rel = "before"
	}
	s := fmt.Sprintf("%s: event %s %s it", r.Label(), absDur(r.Time.Sub(t)).Round(time.Second), rel)
	if r.RestoredCheckpointTime != nil && !t.Before(*r.RestoredCheckpointTime) && t.Before(r.Time) {
		s += ", in its replayed interval (processed twice)"
	}
	return s
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
