package checks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// Status of one check: the statuses of the evidence (pass, fail, skipped,
// info).
type Status = evidence.Status

// The statuses a check can end in.
const (
	Pass    = evidence.Pass
	Fail    = evidence.Fail
	Skipped = evidence.Skipped
	Info    = evidence.Info
)

// ErrFailed is returned (wrapped) by callers when at least one check found
// exceptions: the control ran and its answer is "no". It is not a failure
// to run (exit code 1, not 3).
var ErrFailed = fault.Failed.New("checks: exceptions found")

// RunError is a check whose SQL failed: the control could not conclude.
type RunError struct {
	Check string
	Err   error
}

func (e *RunError) Error() string { return "check " + e.Check + ": " + e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// Outcome is the result of one check.
type Outcome struct {
	ID          string `json:"id"`
	Assertion   string `json:"assertion"`
	Description string `json:"description"`
	Status      Status `json:"status"`
	// Exceptions is the number of exception rows: all of them, never a
	// sample.
	Exceptions int64 `json:"exceptions"`
	// WithinTolerance counts the rows of the exception table whose
	// difference is within a declared tolerance (the column of role
	// within_tolerance is true): listed with the exceptions, but not
	// exceptions. nil for a check whose rows have no such column.
	WithinTolerance *int64 `json:"-"`
	// Tolerances are the declared tolerances the check applies (its
	// "-- tolerance:" key), column by column; none when none was declared.
	Tolerances []ToleranceNote `json:"-"`
	// Requires and ToleranceKey are the check's "-- requires:" (followed
	// by its "-- scope:") and "-- tolerance:" keys: the settings it looks
	// with (the run history compares them with the previous run's,
	// evidence.CheckScope).
	Requires     []string `json:"-"`
	ToleranceKey string   `json:"-"`
	// File is the exceptions CSV, relative to the evidence folder ("" when
	// skipped). checks.Run leaves it empty: the caller writes the file
	// from Table and names it here.
	File string `json:"exceptions_file,omitempty"`
	// SkipReason says which spec fields a skipped check needed.
	SkipReason string   `json:"skip_reason,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// Columns are the exception table's columns, in order, with their
	// DuckDB types and roles (the reports read the rows from the
	// exceptions file the caller writes from Table).
	Columns []Column `json:"-"`
	// Chart is the picture of the report the check feeds (its
	// "-- chart:" key: ChartBalance, ChartReplayedKeys, ChartReperformance;
	// "" for none).
	Chart string `json:"-"`
	// Finding is what the check's exceptions are (its "-- finding:" key):
	// FindingReplay for findings of a replay that SummarizeReplay
	// attributes to restarts (and the report draws on the window
	// timeline); "" otherwise.
	Finding string `json:"-"`
	// Totals is the check's "-- totals:" key (TotalsRepeatedIDs or "").
	Totals string `json:"-"`
	// SQL is the exact query run, for re-performance: the rendered check
	// file, without the header keys that only tell reconcile's reports how
	// to read the exceptions (chart, finding, notes, columns).
	SQL string `json:"-"`
	// Table is the DuckDB table holding every exception row, sorted on
	// every column, while the session is open ("" when skipped).
	Table string `json:"-"`
}

// ToleranceNote is one declared tolerance a check applied: the column (or
// measure) and the tolerance as the spec writes it.
type ToleranceNote struct {
	Column, Tolerance string
}

// Column is one column of a check's exception table.
type Column struct {
	Name    string // as the check's query returns it
	Type    string // its DuckDB type in the exception table (DECIMAL(38,2), VARCHAR, BIGINT, TIMESTAMP WITH TIME ZONE, …)
	Role    string // "" or one of the Role* constants below
	Measure string // for RoleSource/RoleSink/RoleDifference: the measure or aggregate the column belongs to ("" for row counts)
}

// The column roles, charts and findings of the evidence schema (see
// package evidence for their meaning), named here for the check files'
// header keys.
const (
	ChartBalance       = evidence.ChartBalance
	ChartReperformance = evidence.ChartReperformance
	ChartReplayedKeys  = evidence.ChartReplayedKeys
	ChartRollForward   = evidence.ChartRollForward
	FindingReplay      = evidence.FindingReplay
	RoleCheckpoints    = evidence.RoleCheckpoints
	RoleDifference     = evidence.RoleDifference
	RoleDifferencePct  = evidence.RoleDifferencePct
	RoleExpected       = evidence.RoleExpected
	RoleOpening        = evidence.RoleOpening
	RoleFinding        = evidence.RoleFinding
	RoleGroup          = evidence.RoleGroup
	RoleID             = evidence.RoleID
	RoleKey            = evidence.RoleKey
	RoleLocation       = evidence.RoleLocation
	RoleMeasure        = evidence.RoleMeasure
	RoleRestart        = evidence.RoleRestart
	RoleSink           = evidence.RoleSink
	RoleSource         = evidence.RoleSource
	RoleWindowEnd      = evidence.RoleWindowEnd
	RoleWindowStart    = evidence.RoleWindowStart
	RoleColumn         = evidence.RoleColumn
	RoleTolerance      = evidence.RoleTolerance
	RoleWithin         = evidence.RoleWithinTolerance
	RoleTotal          = evidence.RoleTotal
)

// Roles lists every role a "-- columns:" key may give, sorted.
var Roles = evidence.Roles

// The notes reconcile adds to a check's outcome ("-- notes:").
const (
	// NotePartialNullIDs: how many rows have a composite id with some NULL
	// parts, compared NULL-safely.
	NotePartialNullIDs = "partial_null_ids"
)

// Column returns the first column with role (and, when measure is not "",
// that measure), and whether there is one.
func (o *Outcome) Column(role, measure string) (Column, bool) {
	for _, c := range o.Columns {
		if c.Role == role && (measure == "" || c.Measure == measure) {
			return c, true
		}
	}
	return Column{}, false
}

// ColumnNames returns the names of the exception table's columns, in order.
func (o *Outcome) ColumnNames() []string {
	out := make([]string, len(o.Columns))
	for i, c := range o.Columns {
		out[i] = c.Name
	}
	return out
}

// ColumnsWith returns every column with role, in order.
func (o *Outcome) ColumnsWith(role string) []Column {
	var out []Column
	for _, c := range o.Columns {
		if c.Role == role {
			out = append(out, c)
		}
	}
	return out
}

// Run runs every check against the prepared source and sink tables (and
// opening, with Params.Opening). For each
// check that runs, all exception rows are kept, sorted on every column (so
// two runs give identical rows), in the session table Outcome.Table, with
// their count and typed columns; Run writes no file (the caller
// writes the evidence from the tables). A check whose requirements p does
// not meet is Skipped, with the reason (skipReason). A check made for the
// other kind of sink (a window
// check on a record-level sink, a record check on a windowed one) does not
// apply and is left out, as is a check another check that applies
// replaces ("-- replaces:"). A check whose SQL fails is reported as a
// *RunError, the other checks still run, and the errors are returned
// joined.
//
// log receives one progress line per check (nil: none).
func Run(ctx context.Context, db *duck.DB, all []*Check, p *Params, log io.Writer) ([]*Outcome, error) {
	return run(ctx, nil, db, all, p, log)
}

// RunOn runs every check as Run does, but in engine eng, in its dialect
// (Remote.Render), over the inputs as eng reads them: each check's
// exception rows are streamed into session db as the table Outcome.Table
// (sorted on every column, as Run's), and nothing else of the inputs
// travels. No id_counts table is built (p.IDCounts stays false: the checks
// join the inputs themselves). A check that applies but has no statement in
// eng's dialect is Skipped, its SkipReason saying so; never passed.
func RunOn(ctx context.Context, eng Remote, db *duck.DB, all []*Check, p *Params, log io.Writer) ([]*Outcome, error) {
	return run(ctx, eng, db, all, p, log)
}

// run is Run (eng nil: the checks run in db, over its tables) and RunOn.
func run(ctx context.Context, eng Remote, db *duck.DB, all []*Check, p *Params, log io.Writer) ([]*Outcome, error) {
	if log == nil {
		log = io.Discard
	}
	var inputCols map[string]bool
	var err error
	if eng == nil {
		if err := countIDs(ctx, db, all, p, log); err != nil {
			return nil, err
		}
		inputCols, err = inputColumns(ctx, db)
	} else {
		p.IDCounts, p.IDCountsSQL = false, ""
		inputCols, err = eng.InputColumns(ctx)
	}
	if err != nil {
		return nil, err
	}
	var inputs Engine = db
	if eng != nil {
		inputs = eng
	}
	var outs []*Outcome
	var ran []*Check
	var errs []error
	replaced := map[string]bool{}
	for _, c := range all {
		if c.Replaces != "" && c.Applies(p) {
			replaced[c.Replaces] = true
		}
	}
	for _, c := range all {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !c.Applies(p) || replaced[c.ID] {
			continue
		}
		o := &Outcome{ID: c.ID, Assertion: strings.Join(c.Assertion, ", "), Description: c.Description, Chart: c.Chart, Finding: c.Finding, Totals: c.Totals, ToleranceKey: c.Tolerance}
		for _, r := range c.Requires {
			o.Requires = append(o.Requires, string(r))
		}
		o.Requires = append(o.Requires, c.Scope...)
		outs = append(outs, o)
		ran = append(ran, c)
		if miss := c.Missing(p); len(miss) > 0 {
			o.Status = Skipped
			o.SkipReason = skipReason(miss, p)
			continue
		}
		t0 := time.Now()
		var err error
		if eng == nil {
			if err = runOne(ctx, db, c, p, o, inputCols); err != nil {
				err = overflowError(ctx, db, p, p.GroupBy, "check "+c.ID, err)
			}
		} else {
			var q string
			q, err = eng.Render(c, p)
			if errors.Is(err, ErrNoRendering) {
				o.Status = Skipped
				o.SkipReason = "not run: " + err.Error()
				fmt.Fprintf(log, "check %s: not run: %v\n", c.ID, err)
				continue
			}
			if err == nil {
				err = runRemote(ctx, eng, db, c, p, o, inputCols, q)
			}
		}
		if err != nil {
			errs = append(errs, &RunError{Check: c.ID, Err: err})
			continue
		}
		unit := "exceptions"
		if o.Exceptions == 1 {
			unit = "exception"
		}
		fmt.Fprintf(log, "check %s: %d %s in %s\n", c.ID, o.Exceptions, unit, time.Since(t0).Round(time.Millisecond))
	}
	if len(errs) > 0 {
		return outs, errors.Join(errs...)
	}
	if len(p.ID) > 1 { // only a composite id can be partly NULL
		if err := notePartialNulls(ctx, inputs, p, outs, ran); err != nil {
			return outs, err
		}
	}
	return outs, nil
}

// The skip reasons of a balance control (skipReason).
const (
	// SkipNoID: a record-id check of a balance control.
	SkipNoID = "no id: balance control"
	// SkipBalanceGrain: a check that counts postings, when an input is at
	// balance grain; the first %s names the input(s), the second is "is"
	// or "are".
	SkipBalanceGrain = "the %s %s at balance grain (grain:): one row per group, holding its balance, so rows are not postings to count"
)

// skipReason says why a check that lacks requirements miss was not run: a
// check of records (requires id, logical_key, checkpoint or compare: keys
// a balance control refuses) in a balance control (SkipNoID), a count of postings with
// an input at balance grain (SkipBalanceGrain), else "not configured:
// needs" and the spec fields it lacks.
func skipReason(miss []Requirement, p *Params) string {
	switch {
	case p.BalanceControl() && slices.ContainsFunc(miss, func(r Requirement) bool {
		return r == NeedID || r == NeedLogicalKey || r == NeedCheckpoint || r == NeedCompare
	}):
		return SkipNoID
	case len(miss) == 1 && miss[0] == NeedPostings:
		var which []string
		for _, t := range []string{SourceTable, SinkTable} {
			if p.Grain(t) == GrainBalance {
				which = append(which, t)
			}
		}
		verb := "is"
		if len(which) > 1 {
			verb = "are"
		}
		return fmt.Sprintf(SkipBalanceGrain, strings.Join(which, " and the "), verb)
	}
	ms := make([]string, len(miss))
	for i, m := range miss {
		ms[i] = string(m)
	}
	return "not configured: needs " + strings.Join(ms, ", ")
}

// countIDs builds table id_counts (queries/run/id_counts.sql: each id's
// rows in the source and in the sink, null ids included, kept for the ids
// on no row or on more than one row of either) when a check that reads it
// ("-- reads: id_counts") will run, every id column has one DuckDB type
// in both tables and none is named as a column of the table's own
// (idCountsColumns); it sets p.IDCounts and p.IDCountsSQL, which the id
// checks' templates read. With
// id columns of different types (or no id) it builds nothing and the
// checks join the tables themselves. Errors are DuckDB's, wrapped.
func countIDs(ctx context.Context, db *duck.DB, all []*Check, p *Params, log io.Writer) error {
	p.IDCounts, p.IDCountsSQL = false, ""
	if len(p.ID) == 0 || noIDCounts {
		return nil
	}
	need := false
	for _, c := range all {
		if c.Applies(p) && len(c.Missing(p)) == 0 && slices.Contains(c.Reads, ReadsIDCounts) {
			need = true
			break
		}
	}
	if !need {
		return nil
	}
	for _, id := range p.ID {
		if slices.ContainsFunc(idCountsColumns, func(c string) bool { return strings.EqualFold(c, id) }) {
			return nil // the table's own column would capture the id's name
		}
	}
	same, err := sameTypes(ctx, db, p.ID)
	if err != nil || !same {
		return err
	}
	q, err := runSQL.SQL(queries.RunIDCounts, struct{ ID []string }{p.ID})
	if err != nil {
		return err
	}
	t0 := time.Now()
	if err := db.Exec(ctx, q); err != nil {
		return fmt.Errorf("checks: counting the rows of each id: %w", err)
	}
	fmt.Fprintf(log, "counted the rows of each id in %s\n", time.Since(t0).Round(time.Millisecond))
	p.IDCounts, p.IDCountsSQL = true, q
	return nil
}

// idCountsColumns are the columns id_counts.sql names besides the id's;
// an id column of one of these names (in any case) gets no id_counts.
var idCountsColumns = []string{"__source_rows", "__sink_rows", "__side"}

// noIDCounts turns id_counts off, so that a test can run the id checks
// both ways over the same inputs (export_test.go).
var noIDCounts bool

// sameTypes reports whether each of cols has one DuckDB type in tables
// source and sink.
func sameTypes(ctx context.Context, db *duck.DB, cols []string) (bool, error) {
	sc, err := db.Columns(ctx, SourceTable)
	if err != nil {
		return false, err
	}
	kc, err := db.Columns(ctx, SinkTable)
	if err != nil {
		return false, err
	}
	st, kt := typeMap(sc), typeMap(kc)
	for _, c := range cols {
		a, ok := st[c]
		if b, kok := kt[c]; !ok || !kok || a != b {
			return false, nil
		}
	}
	return true, nil
}

// ErrNameClash is returned (a usage error: exit 2) when a check's own
// output column has the name of an input column the check also selects
// (an id column named "difference", say): DuckDB gives the second of two
// equal names a suffix ("difference_1"), and the evidence would label the
// columns wrongly — the id column taken for the check's. Renaming the
// input column (rename: in the spec) resolves it.
var ErrNameClash = fault.Usage.New("checks: a check's column has an input column's name")

// checkTables are the tables the checks read their input columns from.
var checkTables = []string{"source", "sink", "expected", "replay_sink", "opening"}

// inputColumns returns the column names of the checkTables that exist.
func inputColumns(ctx context.Context, db *duck.DB) (map[string]bool, error) {
	names := map[string]bool{}
	for _, t := range checkTables {
		cols, err := db.Columns(ctx, t)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			names[c.Name] = true
		}
	}
	return names, nil
}

// renamedColumn returns a column of cols that DuckDB renamed because its
// name was taken (base name, then "_" and digits, the base among cols) and
// that no input table has, when the base is a column the check declares of
// its own (its "-- columns:" roles: an exact name, or a pattern such as
// source_*; or its "-- writes:" names), and the name it was renamed from. A query of one's own that
// selects a column of both inputs (s.a, k.a: a, a_1) declares neither, and
// is left as DuckDB names it.
func renamedColumn(cols []duck.Column, inputCols map[string]bool, roles []ColumnRole, writes []string) (renamed, from string, ok bool) {
	// DuckDB tells column names apart without case: "Source_Value" takes
	// "source_value" too.
	lower := strings.ToLower
	declared := func(name string) bool {
		if slices.ContainsFunc(writes, func(w string) bool { return lower(w) == name }) {
			return true
		}
		for _, r := range roles {
			rn := lower(r.Name)
			if prefix, suffix, wild := strings.Cut(rn, "*"); wild {
				if len(name) > len(prefix)+len(suffix) && strings.HasPrefix(name, prefix) && strings.HasSuffix(name, suffix) {
					return true
				}
			} else if rn == name {
				return true
			}
		}
		return false
	}
	has, input := map[string]bool{}, map[string]bool{}
	for _, c := range cols {
		has[lower(c.Name)] = true
	}
	for n := range inputCols {
		input[lower(n)] = true
	}
	for _, c := range cols {
		name := lower(c.Name)
		if input[name] {
			continue
		}
		i := strings.LastIndexByte(name, '_')
		if i <= 0 || i == len(name)-1 || strings.Trim(name[i+1:], "0123456789") != "" {
			continue
		}
		base := name[:i]
		// DuckDB renames a taken "x" to "x_1", and a taken "x_1" to "x_1_1"
		for !has[base] {
			j := strings.LastIndexByte(base, '_')
			if j <= 0 || strings.Trim(base[j+1:], "0123456789") != "" || j == len(base)-1 {
				break
			}
			base = base[:j]
		}
		if has[base] && input[base] && declared(base) {
			return c.Name, base, true
		}
	}
	return "", "", false
}

func runOne(ctx context.Context, db *duck.DB, c *Check, p *Params, o *Outcome, inputCols map[string]bool) error {
	q, err := c.Render(p)
	if err != nil {
		return err
	}
	o.SQL = sqlfile.WithoutKeys(q, reportKeys...)
	o.Table = "exceptions__" + c.ID
	table := struct{ Table, Check string }{o.Table, q}
	if err := db.ExecFile(ctx, runSQL, queries.RunExceptionTable, table); err != nil {
		return err
	}
	return outcomeOf(ctx, db, c, p, o, inputCols)
}

// runRemote runs check c's statement q (in eng's dialect) in eng, streams
// its rows into the session table o.Table (sorted on every column, as
// runOne's) and fills o as runOne does. o.SQL is q as run.
func runRemote(ctx context.Context, eng Remote, db *duck.DB, c *Check, p *Params, o *Outcome, inputCols map[string]bool, q string) error {
	o.SQL = q
	o.Table = "exceptions__" + c.ID
	rows := o.Table + "__rows"
	rr, err := eng.QueryArrow(ctx, q)
	if err != nil {
		return err
	}
	_, err = db.LoadArrow(ctx, rows, rr)
	rr.Release()
	if err != nil {
		return err
	}
	defer db.DropTable(context.WithoutCancel(ctx), rows)
	table := struct{ Table, Check string }{o.Table, "SELECT * FROM " + duck.Ident(rows)}
	if err := db.ExecFile(ctx, runSQL, queries.RunExceptionTable, table); err != nil {
		return err
	}
	return outcomeOf(ctx, db, c, p, o, inputCols)
}

// outcomeOf fills o from the exception table o.Table of check c: its
// columns with their roles, its tolerances, the count of its exceptions and
// of its rows within tolerance, and its status.
func outcomeOf(ctx context.Context, db *duck.DB, c *Check, p *Params, o *Outcome, inputCols map[string]bool) error {
	cols, err := db.Columns(ctx, o.Table)
	if err != nil {
		return err
	}
	if renamed, from, ok := renamedColumn(cols, inputCols, c.Roles, c.Writes); ok {
		return fmt.Errorf("%w: it writes a column %q of its own and selects an input column of that name too (DuckDB named the second %q, and the evidence would label the columns wrongly): rename the input column (rename: in the spec)", ErrNameClash, from, renamed)
	}
	o.Columns = c.columns(cols, p)
	o.Tolerances = c.tolerances(p)
	var within string
	if wc, ok := o.Column(RoleWithin, ""); ok {
		if wc.Type != "BOOLEAN" {
			return fmt.Errorf("column %s has role %s but is %s; it must be BOOLEAN", wc.Name, RoleWithin, wc.Type)
		}
		within = wc.Name
	}
	_, n, err := db.StringsFile(ctx, runSQL, queries.RunExceptionCount, struct{ Table, Within string }{o.Table, within})
	if err != nil {
		return err
	}
	fmt.Sscan(*n[0][0], &o.Exceptions)
	if within != "" {
		var w int64
		fmt.Sscan(*n[0][1], &w)
		o.WithinTolerance = &w
	}
	o.Status = Pass
	if o.Exceptions > 0 {
		o.Status = Fail
		if c.Info {
			o.Status = Info
		}
	}
	return nil
}

// notePartialNulls counts rows whose composite id has some, but not all,
// parts NULL: they are matched NULL-safely (a NULL part equals a NULL part),
// and the checks with "-- notes: partial_null_ids" that ran say so.
func notePartialNulls(ctx context.Context, db Engine, p *Params, outs []*Outcome, ran []*Check) error {
	_, r, err := stringsFile(ctx, db, runSQL, queries.RunPartialNullIDs, struct{ ID []string }{p.ID})
	if err != nil {
		return err
	}
	var src, sink int64
	fmt.Sscan(*r[0][0], &src)
	fmt.Sscan(*r[0][1], &sink)
	if src+sink == 0 {
		return nil
	}
	note := fmt.Sprintf("%d source and %d sink rows have a composite id with some NULL parts; they are compared NULL-safely (a NULL part equals a NULL part)", src, sink)
	for i, o := range outs {
		if o.Status != Skipped && slices.Contains(ran[i].Notes, NotePartialNullIDs) {
			o.Notes = append(o.Notes, note)
		}
	}
	return nil
}

// Totals are the population figures of the two inputs.
type Totals struct {
	SourceRows        int64          `json:"source_rows"`
	SinkRows          int64          `json:"sink_rows"`
	SourceDistinctIDs int64          `json:"source_distinct_ids"`
	SinkDistinctIDs   int64          `json:"sink_distinct_ids"`
	Measures          []MeasureTotal `json:"measures,omitempty"`
	// OpeningRows is the rows of table opening (Params.Opening); nil
	// without one.
	OpeningRows *int64 `json:"opening_rows,omitempty"`
}

// MeasureTotal is the exact sum of one measure on both sides, as decimal
// text at the measure's scale.
type MeasureTotal struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	SourceSum  string `json:"source_sum"`
	SinkSum    string `json:"sink_sum"`
	Difference string `json:"difference"`
	// OpeningSum, ExpectedSum (opening + source) and RollForwardDifference
	// (sink − expected) are a roll-forward's, at the same scale ("" without
	// an opening: Params.Opening).
	OpeningSum, ExpectedSum, RollForwardDifference string `json:"-"`
}

// ComputeTotals returns the population totals: each input's rows, its
// distinct record ids (null ids left out, a composite id counted
// NULL-safely) and the exact sum of each measure; with an opening
// (Params.Opening), its rows and, per measure, its sum, the expected
// closing (opening + source) and the sink less that
// (totals/opening_sums.sql).
//
// The distinct ids are counted from the outcome of a check with "-- totals:
// repeated_ids" when one ran (duplicate_ids): an input's distinct ids are
// its rows with an id less the extra copies of every repeated id, rows −
// Σ(row_count − 1), which is the count of distinct ids without grouping 10
// M ids a second time (totals/id_rows.sql, totals/repeated_copies.sql);
// otherwise they are counted directly (totals/distinct_ids.sql). The two
// agree by construction (both leave out the same null ids, both group NULL
// parts together), which TestTotalsFromRepeatedIDs checks on inputs with
// empty, NULL and partly NULL ids. A check that says totals: repeated_ids
// but lacks the columns side or row_count is an error. The rows with an id
// are the rows less those of a check with "-- totals: null_ids" when one ran
// (null_ids: the same rule, nullid), else counted (totals/id_rows.sql).
func ComputeTotals(ctx context.Context, db *duck.DB, p *Params, outs []*Outcome) (*Totals, error) {
	return computeTotals(ctx, nil, db, p, outs)
}

// ComputeTotalsOn returns the population totals as ComputeTotals does, the
// figures over the inputs computed in engine eng as it reads them (the
// statements of queries/totals, which both dialects run as written): each
// input's rows and measure sums, and its distinct ids the way
// ComputeTotals counts them — from the exception tables of the "-- totals:"
// checks, which RunOn brought into session db (their rows counted there,
// totals/side_rows.sql, totals/repeated_copies.sql, and subtracted from the
// rows eng counted), else directly in eng (totals/distinct_ids.sql).
func ComputeTotalsOn(ctx context.Context, eng Engine, db *duck.DB, p *Params, outs []*Outcome) (*Totals, error) {
	return computeTotals(ctx, eng, db, p, outs)
}

// computeTotals is ComputeTotals (eng nil: every statement in db) and
// ComputeTotalsOn.
func computeTotals(ctx context.Context, eng Engine, db *duck.DB, p *Params, outs []*Outcome) (*Totals, error) {
	var inputs Engine = db
	if eng != nil {
		inputs = eng
	}
	t := &Totals{}
	// The first check that ran to its end with each "-- totals:" key (only
	// such a check has every row in its table: a failed query leaves its
	// status empty), with the columns the totals read.
	byKey := func(key string, cols ...string) (*Outcome, error) {
		for _, o := range outs {
			ran := o.Status == Pass || o.Status == Fail || o.Status == Info
			if o.Totals != key || !ran || o.Table == "" {
				continue
			}
			for _, col := range cols {
				if !slices.Contains(o.ColumnNames(), col) {
					return nil, fmt.Errorf("check %s says totals: %s but its rows have no column %s", o.ID, key, col)
				}
			}
			return o, nil
		}
		return nil, nil
	}
	repeated, err := byKey(TotalsRepeatedIDs, "side", "row_count")
	if err != nil {
		return nil, err
	}
	nulls, err := byKey(TotalsNullIDs, "side")
	if err != nil {
		return nil, err
	}
	for _, side := range []struct {
		table          string
		rows, distinct *int64
	}{{SourceTable, &t.SourceRows, &t.SourceDistinctIDs}, {SinkTable, &t.SinkRows, &t.SinkDistinctIDs}} {
		data := struct {
			Table, Side, Exceptions string
			ID                      []string
		}{Table: side.table, Side: side.table, ID: p.ID}
		var err error
		if *side.rows, err = countFile(ctx, inputs, totalsSQL, queries.TotalsRows, data); err != nil {
			return nil, err
		}
		if len(p.ID) == 0 {
			continue // a windowed sink (reperform): no record id
		}
		if repeated == nil {
			if *side.distinct, err = countFile(ctx, inputs, totalsSQL, queries.TotalsDistinctIDs, data); err != nil {
				return nil, err
			}
			continue
		}
		var withID int64
		switch {
		case eng == nil:
			if nulls != nil {
				data.Exceptions = nulls.Table
			}
			withID, err = db.CountFile(ctx, totalsSQL, queries.TotalsIDRows, data)
		case nulls != nil:
			// The exception table is the session's, the rows eng's.
			var n int64
			n, err = db.CountFile(ctx, totalsSQL, queries.TotalsSideRows, struct{ Exceptions, Side string }{nulls.Table, side.table})
			withID = *side.rows - n
		default:
			withID, err = countFile(ctx, inputs, totalsSQL, queries.TotalsIDRows, data)
		}
		if err != nil {
			return nil, err
		}
		data.Exceptions = repeated.Table
		copies, err := db.CountFile(ctx, totalsSQL, queries.TotalsRepeatedCopies, data)
		if err != nil {
			return nil, err
		}
		*side.distinct = withID - copies
	}
	for _, m := range p.Measures {
		typ := p.MeasureTypes[m]
		_, rs, err := stringsFile(ctx, inputs, totalsSQL, queries.TotalsMeasureSums, struct{ Measure, Type string }{m, typ})
		if err != nil {
			if eng != nil {
				return nil, err
			}
			return nil, overflowError(ctx, db, p, nil, "the totals", err)
		}
		r := rs[0]
		// DuckDB's sum of a DECIMAL(38,s) is held in 128 bits, which hold
		// 39 digits: a sum past 38 is not refused there, only mislabelled.
		for i, what := range []string{"the sum of measure " + m + " in the source", "the sum of measure " + m + " in the sink", "the difference of measure " + m + " (sink - source)"} {
			if n := digitsOf(*r[i]); n > 38 {
				return nil, fmt.Errorf("%w: %s, %s, has %d digits, beyond %s, the widest exact decimal: no total is rounded to fit, so the totals cannot be computed", ErrOverflow, what, *r[i], n, typ)
			}
		}
		mt := MeasureTotal{Name: m, Type: typ, SourceSum: *r[0], SinkSum: *r[1], Difference: *r[2]}
		if p.Opening {
			_, rs, err := db.StringsFile(ctx, totalsSQL, queries.TotalsOpeningSums, struct{ Measure, Type string }{m, typ})
			if err != nil {
				return nil, overflowError(ctx, db, p, nil, "the totals", err)
			}
			for i, what := range []string{"the sum of measure " + m + " in the opening", "the opening's plus the source's sum of measure " + m, "the roll-forward difference of measure " + m + " (sink - expected)"} {
				if n := digitsOf(*rs[0][i]); n > 38 {
					return nil, fmt.Errorf("%w: %s, %s, has %d digits, beyond %s, the widest exact decimal: no total is rounded to fit, so the totals cannot be computed", ErrOverflow, what, *rs[0][i], n, typ)
				}
			}
			mt.OpeningSum, mt.ExpectedSum, mt.RollForwardDifference = *rs[0][0], *rs[0][1], *rs[0][2]
		}
		t.Measures = append(t.Measures, mt)
	}
	if p.Opening {
		n, err := db.CountFile(ctx, totalsSQL, queries.TotalsRows, struct{ Table string }{OpeningTable})
		if err != nil {
			return nil, err
		}
		t.OpeningRows = &n
	}
	return t, nil
}

// digitsOf counts the digits of a decimal number's text (sign and point
// left out).
func digitsOf(v string) int {
	n := 0
	for _, c := range v {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}
