package control

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/load"
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
// text, as the inputs wrote them — an id column with normalize: as the
// checks match it, normalised, and the value given normalised alike.
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
	// An input that lists bad records (bad_records: report) has them
	// added by the preparation too.
	if cols.BadRecords, err = load.BadRecords(ctx, db, ss.inputs); err != nil {
		return nil, err
	}
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
	f["recordkey"] = func(alias string, key []KeyPart, normalize map[string][]string) (string, error) {
		return explainSQL.SQL(queries.ExplainRecordKey, struct {
			Alias     string
			Key       []KeyPart
			Normalize map[string][]string
		}{alias, key, normalize})
	}
	f["windowkey"] = func(alias string, key windowKey) (string, error) {
		return explainSQL.SQL(queries.ExplainWindowKey, struct {
			Alias, End string
			Groups     []KeyPart
		}{alias, key.End, key.Groups})
	}
	explainSQL = queries.MustSet("explain", f)
}

func explainRecord(ctx context.Context, db *duck.DB, s *spec.Spec, values []string, ex *Explanation, sourceLoc, sinkLoc string) error {
	for i, c := range s.ID {
		ex.Key = append(ex.Key, KeyPart{c, values[i]})
	}
	cols, srcRows, err := db.StringsFile(ctx, explainSQL, queries.ExplainRecordRows, struct {
		Table, Loc string
		Key        []KeyPart
		Normalize  map[string][]string
	}{checks.SourceTable, sourceLoc, ex.Key, s.Normalize})
	if err != nil {
		return err
	}
	for _, r := range srcRows {
		ex.Source = append(ex.Source, plainRow(cols, r, ""))
	}
	cols, sinkRows, err := db.StringsFile(ctx, explainSQL, queries.ExplainRecordRows, struct {
		Table, Loc string
		Key        []KeyPart
		Normalize  map[string][]string
	}{checks.SinkTable, sinkLoc, ex.Key, s.Normalize})
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
