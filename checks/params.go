package checks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// Params are the columns a check template sees, after Prepare. The tables
// are always named source and sink and carry the provenance columns of
// package sources (__file, __line, __row).
type Params struct {
	// ID are the record id columns, in both tables, in spec order.
	ID []string
	// Measures are the exact-decimal columns, in both tables.
	Measures []string
	// GroupBy are the grouping columns for the balances, in both tables.
	GroupBy []string
	// Checkpoint is the sink column holding the checkpoint id ("" if none).
	Checkpoint string
	// LogicalKey are the sink's deterministic output key columns.
	LogicalKey []string
	// Duplicates are the columns that make a posting unique (duplicates:),
	// in spec order, and Postings the inputs that have all of them, which
	// the check duplicate_postings reads (PlanDuplicates); nil when none.
	Duplicates []string
	Postings   []PostingInput
	// SourceValueCols and SinkValueCols are the columns whose values decide
	// whether two rows of one id "conflict": the compared columns (the
	// names of Compared).
	SourceValueCols []string
	SinkValueCols   []string
	// Compared are the columns compared on every matched id, in order
	// (PlanComparison), with what their comparison needs in SQL;
	// Uncompared the columns of either input left out, and why.
	Compared   []*Compared
	Uncompared []UncomparedColumn
	// BalanceTolerance is, per measure, the declared balance_tolerance:
	// of its sums (nil when none).
	BalanceTolerance map[string]*ToleranceSQL
	// AllowEmpty are the inputs ("source", "sink") that may hold no
	// records (allow_empty:).
	AllowEmpty []string
	// MeasureTypes maps each measure to its DuckDB type, DECIMAL(38,s),
	// with s the largest scale either input needs.
	MeasureTypes map[string]string
	// Replay describes a windowed sink re-performed from the source (nil
	// unless the spec has reperform:); see PrepareReplay for its tables.
	Replay *Replay
	// Uncommitted says the table sink_uncommitted (SinkUncommittedTable)
	// exists: the id columns (typed as the sink's are compared), __file and
	// __line of every row of the sink's uncommitted files (written but not
	// committed: in-progress or pending part files), for labelling
	// findings; never rows of the sink. False when the sink has no such
	// files, so a check's output columns do not change for a sink without
	// them.
	Uncommitted bool
	// SourceLocation and SinkLocation are the tables' location forms
	// (sources.Input.LocationForm): "" for file:line, or
	// "topic[partition]@offset" for a Kafka input. Check files render a
	// location with {{loc "s" $.SourceLocation}} / {{loc "k" $.SinkLocation}}.
	SourceLocation, SinkLocation string
	// BadRecords is set when an input lists records it could not decode
	// (bad_records: report); they are in table bad_records (side,
	// location, reason), which the check bad_records reads.
	BadRecords bool
	// CommitHistory is set when an input reads a history of commits (an
	// Iceberg table's snapshots: sources.Input.CommitHistory); it is in
	// table commit_history (side, seq, finding, exception, commit,
	// other_commit, detail), which the checks commit_history and
	// commit_history_info read.
	CommitHistory bool
	// IDCounts says the temporary table id_counts exists (Run builds it
	// before the checks; queries/run/id_counts.sql): the id columns,
	// __source_rows and __sink_rows BIGINT, for every id (null ids included,
	// as written) on no row or on more than one row of either input. The
	// id checks take their ids from it when set, else they join source and
	// sink themselves. IDCountsSQL is
	// the statement that built it, kept in the evidence for re-performance.
	IDCounts    bool
	IDCountsSQL string
	// KeyNormalize are the id and group columns with normalize:, each with
	// its normalisations as the spec lists them (they apply in the order
	// of spec.Normalizations): Prepare rewrote them normalised in both
	// tables (rules/normalized_text.sql), so that every check matches and
	// groups by the normalised value, after keeping in table key_spellings
	// (KeySpellingsTable) every row whose value as written differs. nil
	// when none. KeySpellingsSQL is the statement that built
	// key_spellings, kept in the evidence for re-performance.
	KeyNormalize    map[string][]string
	KeySpellingsSQL string
	// SourceGrain and SinkGrain are the grains of the source and the sink
	// in a balance control (GrainPosting, GrainBalance; "" is
	// GrainPosting): a balance-grain input has one row per group, holding
	// its balance (spec grain:).
	SourceGrain, SinkGrain string
	// Opening says table opening (OpeningTable) exists: a roll-forward's
	// balances at the start of the period, one row per group, with the
	// group columns typed as the sink's and the measures as MeasureTypes'
	// storage (Prepare); OpeningLocation is its location form, as
	// SourceLocation's.
	Opening         bool
	OpeningLocation string
}

// The grains of a balance control's input (Params.Grain, spec grain:).
const (
	// GrainPosting: the input's rows are postings, summed and counted.
	GrainPosting = "posting"
	// GrainBalance: the input has one row per group, its balance.
	GrainBalance = "balance"
)

// BalanceControl reports whether p is a balance control: no record id and
// no windowed sink (the spec's group_by and measures without id).
func (p *Params) BalanceControl() bool { return len(p.ID) == 0 && p.Replay == nil }

// Grain returns the grain of table (SourceTable, SinkTable or
// OpeningTable): GrainBalance for the opening, else the input's grain,
// GrainPosting by default.
func (p *Params) Grain(table string) string {
	g := ""
	switch table {
	case SourceTable:
		g = p.SourceGrain
	case SinkTable:
		g = p.SinkGrain
	case OpeningTable:
		return GrainBalance
	}
	if g == "" {
		return GrainPosting
	}
	return g
}

// BalanceInput is an input at balance grain, for templates: its table
// (which is also its role: source, sink or opening) and location form.
type BalanceInput struct {
	Table, Location string
}

// BalanceInputs returns the inputs at balance grain in the order source,
// sink, opening (the opening when it exists), for templates:
// {{range .BalanceInputs}}.
func (p *Params) BalanceInputs() []BalanceInput {
	var out []BalanceInput
	if p.Grain(SourceTable) == GrainBalance {
		out = append(out, BalanceInput{SourceTable, p.SourceLocation})
	}
	if p.Grain(SinkTable) == GrainBalance {
		out = append(out, BalanceInput{SinkTable, p.SinkLocation})
	}
	if p.Opening {
		out = append(out, BalanceInput{OpeningTable, p.OpeningLocation})
	}
	return out
}

// Dec returns a measure's exact type, for templates: {{$.Dec .}}.
func (p *Params) Dec(measure string) (string, error) {
	t, ok := p.MeasureTypes[measure]
	if !ok {
		return "", fmt.Errorf("no type for measure %s", measure)
	}
	return t, nil
}

// IDCountsKey reports whether key_checkpoint_conflicts takes the repeated
// logical keys from table id_counts: it exists (IDCounts) and the logical
// key is the record id (the same columns, in any order).
func (p *Params) IDCountsKey() bool {
	if !p.IDCounts || p.Replay != nil {
		return false
	}
	a, b := slices.Clone(p.LogicalKey), slices.Clone(p.ID)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// Normalized returns the compared columns with normalize:, for templates
// (a group column normalised in place as a key among them, Keyed).
func (p *Params) Normalized() []*Compared {
	var out []*Compared
	for _, c := range p.Compared {
		if len(c.Normalize) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// HasTolerance reports whether a compared column has a tolerance.
func (p *Params) HasTolerance() bool {
	for _, c := range p.Compared {
		if c.Tol != nil {
			return true
		}
	}
	return false
}

// BalanceTol returns a measure's balance tolerance (nil when none), for
// templates: {{with $.BalanceTol .}}.
func (p *Params) BalanceTol(measure string) *ToleranceSQL { return p.BalanceTolerance[measure] }

// funcs are the template helpers of check files and of the statements in
// queries/: those of package sqlfile (q, lit, litlist, cols, match, differ,
// nullid, valuekey, loc, locsep, coalesced, name, cpid, sortedlist, replaykey,
// replaygroup, replaymatch) and these, each rendering a fragment file of
// queries/rules or queries/replay, so that a rule is written once:
//
//	restartof EPOCH                  the restart that rewound a write of checkpoint EPOCH (rules/restart_of.sql)
//	restartofkey EPOCH ALIAS GROUPS  restartof, or a restart whose replayed interval holds events of the
//	                                 key (window end and GROUPS) of ALIAS (rules/restart_of_key.sql)
//	rewound RESTART EPOCH            restart RESTART rolled back a write of checkpoint EPOCH (rules/rewound.sql)
//	replayed RESTART TIME            TIME lies in restart RESTART's replayed interval (rules/replayed.sql)
//	windowcompare ROWS SUM EXPECTED  whether each row, and the sum, equals the expected value (rules/window_compare.sql)
//	windowagrees                     an aggregate of a window agrees with the re-performance (rules/window_agrees.sql)
//	windowfinding                    what a disagreeing aggregate is (rules/window_finding.sql)
//	instant COL TYPE ZONE TRY        COL of DuckDB type TYPE read as a TIMESTAMPTZ (rules/instant.sql)
//	intervalfields VALUE             the INTERVAL VALUE as its months, days and micros (rules/interval_fields.sql)
//	textdecimal TEXT TYPE CAST       text TEXT read as the exact DECIMAL TYPE by CAST or TRY_CAST (rules/text_decimal.sql)
//	zoneless COL TYPE                a value of COL carries no zone (rules/zoneless.sql)
//	epochmillis TEXT, haszone TEXT   how a timestamp text is told apart (rules/epoch_millis.sql, has_zone.sql)
//	inexacttext TEXT CLASS S D       TEXT read as a number, date, timestamp, time or interval would change
//	                                 (rules/inexact_text.sql)
//	walldst WALL ZONE CHECK          wall-clock time WALL is skipped ("gap") or repeated ("repeat") by a DST
//	                                 change of ZONE (rules/wall_dst.sql)
//	rowtext ALIAS REPLAY             one replay_sink row as evidence text (replay/row_text.sql)
//	cmpvalue ALIAS SIDE C            one side ("source" or "sink") of compared column C as the value it is
//	                                 compared by, normalised (rules/compared_value.sql)
//	cmpraw ALIAS SIDE C              the same, not normalised (as stored: normalised already when C.Keyed)
//	normtext TEXT NORMALIZE          text TEXT normalised as the list NORMALIZE says (rules/normalized_text.sql)
//	written ALIAS W COL              key column COL of ALIAS as written, W its key_spellings row (writtenKey)
//	spelling ALIAS W COLS            the key columns COLS of ALIAS as written: one text, or a struct (spellingOf)
//	has LIST S                       slices.Contains
//	cmpdiffers A B C                 C differs between aliases A (source) and B (sink) (rules/compared_differs.sql)
//	cmpdifference A B C              their difference as text: exact for numbers, an interval for timestamps
//	                                 and dates, NULL otherwise (rules/compared_difference.sql)
//	cmpwithin A B C                  the difference is within C's tolerance; NULL without one
//	                                 (rules/compared_within.sql)
//	within SOURCE SINK TOL           the difference of two values is within tolerance TOL
//	                                 (rules/within_tolerance.sql)
//	postingkey ALIAS C               posting column C (a PostingColumn) as duplicate_postings compares it
//	                                 (rules/posting_key.sql)
//	rollforward PARAMS TOTAL         every group's opening, postings, expected and closing balance, difference
//	                                 and status, with the grand total when TOTAL (rules/roll_forward.sql)
//	unscaled VALUE                   the exact decimal VALUE as its unscaled HUGEINT (rules/unscaled.sql)
//	percentof PART WHOLE             PART as an exact percentage of WHOLE, both unscaled HUGEINTs of decimals of
//	                                 one type, rounded half away from zero to 6 places; NULL when WHOLE is 0
//	                                 (rules/percent_of.sql)
//	hasprefix S PREFIX               strings.HasPrefix, for type names
var funcs = checkFuncs()

// Funcs returns the template helpers above (a fresh map), for the
// statements other packages render (`reconcile explain`).
func Funcs() template.FuncMap {
	out := template.FuncMap{}
	for k, v := range funcs {
		out[k] = v
	}
	return out
}

// The statement folders of queries/, read once when the program starts,
// each template parsed when first rendered (queries.MustSet; a broken
// embedded file is a broken build).
var (
	rulesSQL, prepareSQL, replaySQL, runSQL, totalsSQL *queries.Set
)

func init() {
	rulesSQL = queries.MustSet("rules", funcs)
	prepareSQL = queries.MustSet("prepare", funcs)
	replaySQL = queries.MustSet("replay", funcs)
	runSQL = queries.MustSet("run", funcs)
	totalsSQL = queries.MustSet("totals", funcs)
}

func checkFuncs() template.FuncMap {
	f := sqlfile.Funcs()
	rule := func(id string, data any) (string, error) { return rulesSQL.SQL(id, data) }
	f["restartof"] = func(epoch string) (string, error) {
		return rule(queries.RulesRestartOf, struct{ Epoch string }{epoch})
	}
	f["restartofkey"] = func(epoch, alias string, groups []string) (string, error) {
		return rule(queries.RulesRestartOfKey, struct {
			Epoch, Alias string
			Groups       []string
		}{epoch, alias, groups})
	}
	f["rewound"] = func(restart, epoch string) (string, error) {
		return rule(queries.RulesRewound, struct{ Restart, Epoch string }{restart, epoch})
	}
	f["replayed"] = func(restart, at string) (string, error) {
		return rule(queries.RulesReplayed, struct{ Restart, Time string }{restart, at})
	}
	f["windowcompare"] = func(rows, sum, expected string) (string, error) {
		return rule(queries.RulesWindowCompare, struct{ Rows, Sum, Expected string }{rows, sum, expected})
	}
	f["windowagrees"] = func() (string, error) { return rule(queries.RulesWindowAgrees, nil) }
	f["windowfinding"] = func() (string, error) { return rule(queries.RulesWindowFinding, nil) }
	f["epochmillis"] = func(text string) (string, error) { return rule(queries.RulesEpochMillis, struct{ Text string }{text}) }
	f["haszone"] = func(text string) (string, error) { return rule(queries.RulesHasZone, struct{ Text string }{text}) }
	f["inexacttext"] = func(text, class string, scale, digits int) (string, error) {
		return rule(queries.RulesInexactText, struct {
			Text, Class   string
			Scale, Digits int
		}{text, class, scale, digits})
	}
	f["walldst"] = func(wall, zone, check string) (string, error) {
		return rule(queries.RulesWallDST, struct{ Wall, Zone, ZoneSQL, Check string }{wall, zone, "", check})
	}
	f["instant"] = func(col, typ, zone string, try bool) (string, error) { return instant(col, typ, zone, try) }
	f["intervalfields"] = func(value string) (string, error) {
		return rule(queries.RulesIntervalFields, struct{ Value string }{value})
	}
	f["textdecimal"] = textDecimal
	f["zoneless"] = func(col, typ string) (string, error) {
		return rule(queries.RulesZoneless, struct{ Col, Type string }{col, typ})
	}
	f["rowtext"] = func(alias string, r *Replay) (string, error) {
		return replaySQL.SQL(queries.ReplayRowText, struct {
			Alias  string
			Replay *Replay
		}{alias, r})
	}
	f["cmpvalue"] = func(alias, side string, c *Compared) (string, error) {
		return comparedValue(alias, c, side, true, false, false)
	}
	f["cmpraw"] = func(alias, side string, c *Compared) (string, error) {
		return comparedValue(alias, c, side, false, false, false)
	}
	f["cmpdiffers"] = func(a, b string, c *Compared) (string, error) {
		return comparedPair(queries.RulesComparedDiffers, a, b, c)
	}
	f["cmpdifference"] = func(a, b string, c *Compared) (string, error) {
		return comparedPair(queries.RulesComparedDifference, a, b, c)
	}
	f["cmpwithin"] = func(a, b string, c *Compared) (string, error) {
		return comparedPair(queries.RulesComparedWithin, a, b, c)
	}
	f["normtext"] = normalizedText
	f["written"] = writtenKey
	f["spelling"] = spellingOf
	f["has"] = slices.Contains[[]string]
	f["within"] = within
	f["postingkey"] = func(alias string, c PostingColumn) (string, error) {
		return rule(queries.RulesPostingKey, struct {
			Alias string
			C     PostingColumn
		}{alias, c})
	}
	f["rollforward"] = func(p *Params, total bool) (string, error) {
		return rule(queries.RulesRollForward, struct {
			P     *Params
			Total bool
		}{p, total})
	}
	f["percentof"] = func(part, whole string) (string, error) {
		return rule(queries.RulesPercentOf, struct{ Part, Whole string }{part, whole})
	}
	f["unscaled"] = func(value string) (string, error) { return rule(queries.RulesUnscaled, struct{ Value string }{value}) }
	f["hasprefix"] = strings.HasPrefix
	return f
}

// textDecimal renders text (a SQL expression of type VARCHAR) read as the
// exact decimal typ, DECIMAL(p,s), with cast (CAST or TRY_CAST):
// rules/text_decimal.sql, which for p > 18 reads the values that fit
// DECIMAL(18,s) as that first (the same values, much faster). A typ that
// is not a DECIMAL(p,s) is cast to as it is.
func textDecimal(text, typ, cast string) (string, error) {
	narrow := ""
	if m := decimalTypeName.FindStringSubmatch(strings.ToUpper(typ)); m != nil {
		p, _ := strconv.Atoi(m[1])
		s, _ := strconv.Atoi(m[2])
		if p > 18 && s <= 18 {
			narrow = decimalType(18, s)
		}
	}
	return rulesSQL.SQL(queries.RulesTextDecimal, struct{ Text, Type, Narrow, Cast string }{text, typ, narrow, cast})
}

// instant renders a SQL expression turning column col (DuckDB type typ)
// into a TIMESTAMPTZ (rules/instant.sql; see PrepareReplay for the rules).
// With try, a value that cannot be read gives NULL instead of an error.
func instant(col, typ, zone string, try bool) (string, error) {
	cast := "CAST"
	if try {
		cast = "TRY_CAST"
	}
	return rulesSQL.SQL(queries.RulesInstant, struct{ Col, Type, Zone, Cast string }{col, typ, zone, cast})
}
