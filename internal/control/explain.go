package control

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// ErrNoKey is what `reconcile explain` returns (wrapped, naming the keys)
// when no source or sink row has a key asked for (a usage error: the key
// was probably mistyped); Explain itself marks such a key Found false.
var ErrNoKey = fault.Usage.New("explain: no row has this key")

// Explanation is everything reconcile knows about one key: a record id, or
// for a windowed sink a window and group. It is what `reconcile explain`
// prints, and its JSON form (--json).
type Explanation struct {
	// Kind is "window" (reperform:) or "record".
	Kind string `json:"kind"`
	// Key pairs the key columns with the values asked for.
	Key []KeyPart `json:"key"`
	// Checkpoint is the sink's checkpoint column (spec checkpoint:), ""
	// when the spec names none.
	Checkpoint string `json:"checkpoint_column,omitempty"`
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
	// Found is false when no row of either input has the key (then the
	// verdict says so and every list is empty).
	Found bool `json:"found"`
	// Verdict is one sentence on the key.
	Verdict string `json:"verdict"`
	// Restart is the restart that explains the key's finding ("" if none).
	Restart string `json:"restart,omitempty"`
	// Sink and Source are every row of the key, in input order.
	Sink   []ExplainRow `json:"sink_rows"`
	Source []ExplainRow `json:"source_rows"`
	// Findings are the exception rows of every check that carry the key,
	// in run order of the checks (see Finding); empty when no check found
	// anything on it.
	Findings []Finding `json:"findings"`
	// Restarts are all restarts known.
	Restarts []restarts.Restart `json:"restarts,omitempty"`
	// Warnings say why the rows shown may not be those a run read (inputs
	// changed since, explained all the same: ExplainOptions.AllowChanged)
	// or what could not be compared with the run (a database input's rows
	// are compared by their count only).
	Warnings []string `json:"warnings,omitempty"`
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

// ExplainOptions tune Explain.
type ExplainOptions struct {
	// Recorded, when set, are the inputs as a run's evidence records them
	// (summary.json inputs, source then sink): each input is fingerprinted
	// again before anything is explained, and one that is no longer what
	// the run read is refused with ErrInputChanged (see compareRecorded).
	Recorded []*evidence.Input
	// RunID names the run Recorded comes from, in messages.
	RunID string
	// AllowChanged explains from changed inputs all the same: the
	// differences are returned in every Explanation's Warnings instead of
	// an error.
	AllowChanged bool
}

// Explain loads the inputs of s and runs its checks (as `reconcile run`
// does, without writing evidence), then returns, for each key of keys in
// order, every source and sink row of the key and every exception row of
// every check that carries it (Explanation.Findings). For a windowed sink,
// a key is the window timestamp (the sink's window_end or window_start;
// any spelling with or without zone) then one value per group column;
// otherwise one value per id column. Values are compared as text, as the
// inputs wrote them — an id column with normalize: as the checks match it,
// normalised, and the value given normalised alike.
//
// A key no row has gets an Explanation with Found false and a verdict
// saying so; it is no error (the caller decides: `reconcile explain` exits
// 2, ErrNoKey). Errors: spec.ErrInvalid (a key of the wrong arity, a
// window timestamp that is not one), ErrInputChanged (opt.Recorded), the
// loads' and the checks' errors. A balance control, which has no such key,
// is refused (spec.ErrInvalid).
func Explain(ctx context.Context, s *spec.Spec, keys [][]string, opt ExplainOptions) ([]*Explanation, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Engine != "" {
		return nil, fmt.Errorf("%w: explain reads the inputs into the embedded engine; a control run on Trino (engine: %s) is not explained yet: its findings on a key are in the exceptions files of the run's evidence (docs/trino.md)", spec.ErrInvalid, sources.Redact(s.Engine))
	}
	if err := noEngineInputs(s, "explain"); err != nil {
		return nil, err
	}
	if s.BalanceControl() {
		return nil, fmt.Errorf("%w: explain shows the rows of one record id or window key; this spec is a balance control (group_by and measures, no id:), whose exceptions are groups: their figures are in the run's exceptions files", spec.ErrInvalid)
	}
	want := len(s.ID)
	what := "the id column(s) " + strings.Join(s.ID, ", ")
	if r := s.Reperform; r != nil {
		want = 1 + len(r.GroupBy)
		what = "the window timestamp then the group column(s) " + strings.Join(r.GroupBy, ", ")
	}
	for _, values := range keys {
		if len(values) != want {
			return nil, fmt.Errorf("%w: key %s has %d value(s); this spec's key needs %d: %s", spec.ErrInvalid, strings.Join(values, ","), len(values), want, what)
		}
	}
	all, err := checks.Load(queries.FS)
	if err != nil {
		return nil, err
	}
	rs, err := readRestarts(s)
	if err != nil {
		return nil, err
	}
	ins, err := openInputs(s, nil)
	if err != nil {
		return nil, err
	}
	defer ins.Close()
	if err := checkColumns(ctx, s, ins); err != nil {
		return nil, err
	}
	var warnings []string
	if opt.Recorded != nil { // before any row is read
		if warnings, err = refingerprint(ctx, s, opt); err != nil {
			return nil, err
		}
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
	set := &runSetup{checks: all, restarts: rs, ins: ins}
	prep, err := prepare(ctx, s, set, ss, io.Discard)
	if err != nil {
		return nil, err
	}
	// After prepare: an input listing its bad records counts them out of
	// its rows there, as the run recorded them.
	if opt.Recorded != nil {
		more, err := compareLoaded(ss.inputs, opt)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, more...)
	}
	outcomes, err := checks.Run(ctx, ss.db, all, prep.params, nil)
	if err != nil {
		return nil, err
	}
	var out []*Explanation
	for _, values := range keys {
		ex, err := explainKey(ctx, ss, s, prep.params, rs, outcomes, values)
		if err != nil {
			return nil, err
		}
		ex.Warnings = warnings
		out = append(out, ex)
	}
	return out, nil
}

// explainKey explains one key in a session whose checks ran (outcomes).
func explainKey(ctx context.Context, ss *session, s *spec.Spec, params *checks.Params, rs *restarts.Restarts, outcomes []*checks.Outcome, values []string) (*Explanation, error) {
	db := ss.db
	ex := &Explanation{Kind: "record", Findings: []Finding{}}
	if rs != nil {
		ex.Restarts = rs.Restarts
	}
	var err error
	if s.Reperform == nil {
		err = explainRecord(ctx, db, s, rs, values, ex, ss.inputs[0].LocationForm, ss.inputs[1].LocationForm)
	} else {
		err = explainWindow(ctx, db, params.Replay, values, ex, ss.inputs[0].LocationForm)
	}
	if err != nil {
		return nil, err
	}
	ex.Found = len(ex.Sink) > 0 || len(ex.Source) > 0 || ex.Expected != nil
	if !ex.Found {
		ex.Verdict = "not found: no row of the source or the sink has this key"
		ex.Window, ex.Expected, ex.SinkSum, ex.Restart = nil, nil, nil, ""
		ex.Sink, ex.Source = []ExplainRow{}, []ExplainRow{}
		return ex, nil
	}
	if err := explainFindings(ctx, db, s, outcomes, ex); err != nil {
		return nil, err
	}
	if ex.Kind == "record" {
		ex.Verdict += findingsVerdict(ex)
	}
	return ex, nil
}

// NotFound returns the keys of exs that no row has, as text
// ("entry_id=E9", …), for ErrNoKey.
func NotFound(exs []*Explanation) []string {
	var out []string
	for _, ex := range exs {
		if !ex.Found {
			out = append(out, keyText(ex.Key))
		}
	}
	return out
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

// recordRows is what explain/record_rows.sql renders.
type recordRows struct {
	Table, Loc string
	Key        []KeyPart
	// Normalize is the spec's normalize: (an id column with it is matched
	// normalised).
	Normalize map[string][]string
	// Restarts and Checkpoint: the sink's rows get their nearest restart
	// by checkpoint (a control with checkpoint: and restarts:).
	Restarts   bool
	Checkpoint string
}

// explainRecord explains one record id: its source and sink rows, the
// verdict by their numbers, and with restarts: (rs) each sink row's nearest
// restart by checkpoint and the restart that explains an id written more
// than once.
func explainRecord(ctx context.Context, db *duck.DB, s *spec.Spec, rs *restarts.Restarts, values []string, ex *Explanation, sourceLoc, sinkLoc string) error {
	ex.Checkpoint = s.Checkpoint
	for i, c := range s.ID {
		ex.Key = append(ex.Key, KeyPart{c, values[i]})
	}
	cols, srcRows, err := db.StringsFile(ctx, explainSQL, queries.ExplainRecordRows, recordRows{Table: checks.SourceTable, Loc: sourceLoc, Key: ex.Key, Normalize: s.Normalize})
	if err != nil {
		return err
	}
	for _, r := range srcRows {
		ex.Source = append(ex.Source, plainRow(cols, r, ""))
	}
	withRestarts := rs != nil && s.Checkpoint != ""
	cols, sinkRows, err := db.StringsFile(ctx, explainSQL, queries.ExplainRecordRows,
		recordRows{Table: checks.SinkTable, Loc: sinkLoc, Key: ex.Key, Normalize: s.Normalize, Restarts: withRestarts, Checkpoint: s.Checkpoint})
	if err != nil {
		return err
	}
	for _, r := range sinkRows {
		x := plainRow(cols, r, s.Checkpoint)
		var epoch, nearest, relation string
		for i, c := range cols {
			switch c {
			case "__epoch":
				epoch = deref(r[i])
			case "__nearest_restart":
				nearest = deref(r[i])
			case "__nearest_relation":
				relation = deref(r[i])
			}
		}
		x.NearestRestart = nearestByEpoch(nearest, relation, epoch)
		ex.Sink = append(ex.Sink, x)
	}
	if withRestarts {
		_, v, err := db.StringsFile(ctx, explainSQL, queries.ExplainRecordRestart, recordRows{Key: ex.Key, Normalize: s.Normalize, Checkpoint: s.Checkpoint})
		if err != nil {
			return err
		}
		ex.Restart = deref(v[0][0])
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
