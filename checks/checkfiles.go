// Package checks holds the reconciliation logic: the SOX-style completeness
// and accuracy checks run over the loaded source and sink tables, and the
// preparation that makes them exact (typed ids, exact-decimal measures).
//
// Each check is one SQL file (see package queries): a text/template over
// the spec's columns that selects the violating rows — its exceptions — so
// zero rows means the check passes. The file starts with a header of
// "-- key: value" lines:
//
//	-- check: late_postings            the check id; must equal the file name
//	                                    without its order prefix (020_late_postings.sql)
//	-- assertion: completeness         completeness, accuracy, or both, comma-separated
//	-- description: …                  one sentence for the report
//	-- requires: id                    spec fields the check needs (id, measures,
//	--                                  group_by, checkpoint, logical_key,
//	--                                  reperform, watermark, emission, records,
//	--                                  compare, normalize, normalize_keys,
//	--                                  bad_records, commit_history, duplicates,
//	--                                  postings, balance_grain, opening);
//	--                                  without them it is skipped, not passed
//	-- replaces: sum_balance           optional: a check left out of every run this
//	                                    check applies to (roll_forward replaces
//	                                    sum_balance when the spec has opening:)
//	-- reads: id_counts                optional: the template reads table id_counts
//	                                    (queries/run/id_counts.sql) when .IDCounts is set;
//	                                    Run builds it only when such a check will run
//	-- severity: info                  optional: exceptions are reported for
//	--                                  information and do not fail the control
//
// Optional keys that tell reconcile's reports and summaries how to read the
// exceptions, so that no Go code names a check or one of its columns:
//
//	-- chart: balance                  the picture the check feeds: balance (source vs
//	                                    sink per group), replayed_keys (keys written again
//	                                    under a later checkpoint), reperformance
//	                                    (re-performed vs sink value per window) or
//	                                    roll_forward (opening, postings and closing per group)
//	-- finding: replay                 its exceptions are findings of a stream job's
//	                                    replay: attributed to restarts (SummarizeReplay)
//	                                    and drawn on the window timeline
//	-- notes: partial_null_ids         notes reconcile adds to the outcome: how many rows
//	                                    have a composite id with some NULL parts
//	-- scope: allow_empty              spec settings its exceptions depend on besides those
//	                                    it requires: the run history compares them with the
//	                                    previous run's, as it does the required ones
//	                                    (evidence.CheckScope)
//	-- tolerance: compare              the declared tolerances the check applies, printed
//	                                    next to its verdict: compare (tolerance: of the
//	                                    compared columns) or balance (balance_tolerance:)
//	-- totals: repeated_ids            its rows are every id on more than one row of an
//	                                    input, one row per id and input with columns side
//	                                    (source or sink) and row_count: the population
//	                                    totals count each input's distinct ids from them
//	                                    (ComputeTotals) instead of grouping its ids again
//	-- totals: null_ids                its rows are every row of an input whose record id
//	                                    is NULL or empty (every part of a composite id), one
//	                                    row each with column side: the totals count the rows
//	                                    with an id as the rows less those, instead of
//	                                    reading every id again
//	-- columns: written_under=checkpoints, src_*=source
//	                                    roles of output columns (Role* constants): a name,
//	                                    or a pattern whose one * stands for a measure or an
//	                                    aggregate of the spec (src_amount → role source,
//	                                    Measure amount). The key may repeat.
//
// Id, group, logical-key and checkpoint columns get their roles from the
// spec. These
// six keys are left out of the SQL kept for re-performance (Outcome.SQL).
//
// A row whose column of role within_tolerance is true is listed with the
// exceptions but is not one: Run counts such rows apart
// (Outcome.WithinTolerance).
//
// An unknown header key or value, a missing check or assertion, or a
// template that does not parse is a load error: every file is parsed before
// any input is read. The assertions are the ledger invariants of a SOX control
// (completeness: no entry dropped; accuracy: no entry double-posted or
// altered), named after the assertions about classes of transactions in
// ISA 315 / AU-C 315 (occurrence, completeness, accuracy).
package checks

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
)

// ErrLoad wraps every problem with a check file.
var ErrLoad = fault.Usage.New("checks: invalid check file")

// Requirement names a spec field a check needs.
type Requirement string

// The spec fields a check can require.
const (
	NeedID         Requirement = "id"
	NeedMeasures   Requirement = "measures"
	NeedGroupBy    Requirement = "group_by"
	NeedCheckpoint Requirement = "checkpoint"
	NeedLogicalKey Requirement = "logical_key"
	// NeedReperform: the spec re-performs a windowed sink (reperform:).
	NeedReperform Requirement = "reperform"
	// NeedWatermark: reperform plus a sink watermark column.
	NeedWatermark Requirement = "watermark"
	// NeedEmission: reperform with emission {last_by: col}.
	NeedEmission Requirement = "emission"
	// NeedRecords: the sink holds records, not windows (no reperform:);
	// record counts are then comparable.
	NeedRecords Requirement = "records"
	// NeedCompare: at least one column is compared on every matched id
	// (compare:, or a column in both inputs besides the id, checkpoint and
	// logical key).
	NeedCompare Requirement = "compare"
	// NeedNormalize: a compared column or an id column has normalize:. A
	// check requiring it applies only then (like a window check, it is
	// left out otherwise, not skipped: there is nothing it could find).
	NeedNormalize Requirement = "normalize"
	// NeedNormalizeKeys: an id or group column has normalize:
	// (Params.KeyNormalize); a check requiring it applies only then.
	NeedNormalizeKeys Requirement = "normalize_keys"
	// NeedBadRecords: an input lists the records it could not decode
	// (bad_records: report), in table bad_records; a check that needs
	// them is not listed in any other run.
	NeedBadRecords Requirement = "bad_records"
	// NeedCommitHistory: an input reads a history of commits (an Iceberg
	// table's snapshots), in table commit_history; a check that needs it is
	// not listed in any other run.
	NeedCommitHistory Requirement = "commit_history"
	// NeedDuplicates: the spec names the columns that make a posting
	// unique (duplicates:), and an input has all of them. A check that
	// needs it is left out of a control of records (with an id) that does
	// not name them, where duplicate_ids finds a repeated record; in a
	// control without an id it is listed, skipped, when they are not
	// named. Its output columns of those names get the role key (the
	// exception's key in the run history).
	NeedDuplicates Requirement = "duplicates"
	// NeedPostings: the source and the sink are both at posting grain
	// (spec grain:; the default), so their rows are postings that can be
	// counted against each other. A balance-grain input has one row per
	// group, so a check that needs it is skipped, saying which input.
	NeedPostings Requirement = "postings"
	// NeedBalanceGrain: an input is at balance grain (Params.BalanceInputs);
	// a check that needs it is not listed in any other run.
	NeedBalanceGrain Requirement = "balance_grain"
	// NeedOpening: the spec has opening: (table opening, a roll-forward's
	// balances at the start of the period); a check that needs it is not
	// listed in any other run.
	NeedOpening Requirement = "opening"
)

var knownRequirements = map[Requirement]bool{NeedID: true, NeedMeasures: true, NeedGroupBy: true, NeedCheckpoint: true, NeedLogicalKey: true,
	NeedReperform: true, NeedWatermark: true, NeedEmission: true, NeedRecords: true, NeedCompare: true, NeedNormalize: true, NeedBadRecords: true,
	NeedCommitHistory: true, NeedNormalizeKeys: true, NeedDuplicates: true, NeedPostings: true, NeedBalanceGrain: true, NeedOpening: true}

// Check is one parsed check file.
type Check struct {
	ID          string
	Assertion   []string
	Description string
	Requires    []Requirement
	// Info is true for "-- severity: info": exceptions are shown but do
	// not fail the control (status info instead of fail).
	Info bool
	// Chart, Finding and Notes are the "-- chart:", "-- finding:" and
	// "-- notes:" keys ("" or nil when absent).
	Chart   string
	Finding string
	Notes   []string
	// Tolerance is the "-- tolerance:" key: which declared tolerances the
	// check applies (ToleranceCompare, ToleranceBalance; "" for none).
	Tolerance string
	// Scope is the "-- scope:" key: spec settings the check's exceptions
	// depend on besides those it requires (ScopeAllowEmpty), which the run
	// history compares with the previous run's (evidence.CheckScope).
	Scope []string
	// Totals is the "-- totals:" key: TotalsRepeatedIDs, or "".
	Totals string
	// Reads are the "-- reads:" entries: the tables Run prepares for the
	// check besides source and sink (ReadsIDCounts).
	Reads []string
	// Replaces is the "-- replaces:" key: the id of a check left out of
	// every run this check applies to ("" for none).
	Replaces string
	// Roles are the "-- columns:" entries, in header order.
	Roles []ColumnRole
	// Writes are the "-- writes:" entries: the other columns the check
	// writes of its own (no role), such as source_value. Like a role's
	// column, one whose name an input column also has is refused
	// (ErrNameClash) rather than renamed by DuckDB.
	Writes []string
	File   string
	file   *sqlfile.File
}

// ColumnRole is one entry of a "-- columns:" key: output column Name (or a
// pattern with one *, standing for a measure or an aggregate) has Role.
type ColumnRole struct {
	Name string
	Role string
}

// Load parses every *.sql file at the root of fsys. A file is named
// NNN_<check id>.sql; checks run and are reported in NNN order (the prefix
// is optional: <check id>.sql sorts by name). Files whose name starts with
// "_" are fragments, not checks, and are skipped.
func Load(fsys fs.FS) ([]*Check, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLoad, err)
	}
	sort.Strings(names)
	var out []*Check
	var errs []error
	for _, name := range names {
		if strings.HasPrefix(name, "_") {
			continue
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		c, err := parse(name, string(data))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrLoad, errors.Join(errs...))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no *.sql check files found", ErrLoad)
	}
	return out, nil
}

// checkKeys are the header keys a check file may carry; reportKeys those of
// them that only tell reconcile's reports how to read the exceptions.
var (
	checkKeys  = []string{"check", "assertion", "description", "requires", "reads", "severity", "chart", "finding", "notes", "columns", "writes", "tolerance", "totals", "scope", "replaces"}
	reportKeys = []string{"chart", "finding", "notes", "columns", "writes", "tolerance", "totals", "scope"}
)

// ReadsIDCounts is the value of a check file's "-- reads:" key for a check
// whose template reads table id_counts when Params.IDCounts is set: Run
// builds the table only when such a check will run.
const ReadsIDCounts = "id_counts"

// The values of a check file's "-- totals:" key (see Load).
const (
	// TotalsRepeatedIDs: the check's exception rows list every repeated id.
	TotalsRepeatedIDs = "repeated_ids"
	// TotalsNullIDs: the check's exception rows list every row whose id is
	// NULL or empty.
	TotalsNullIDs = "null_ids"
)

// ScopeAllowEmpty is a value of a check file's "-- scope:" key: its
// exceptions depend on the spec's allow_empty:.
const ScopeAllowEmpty = "allow_empty"

// The values of a check file's "-- tolerance:" key.
const (
	// ToleranceCompare: the tolerance: of the compared columns.
	ToleranceCompare = "compare"
	// ToleranceBalance: the balance_tolerance: of the measures.
	ToleranceBalance = "balance"
)

var (
	charts   = []string{ChartBalance, ChartReperformance, ChartReplayedKeys, ChartRollForward}
	findings = []string{FindingReplay}
	tolKinds = []string{ToleranceCompare, ToleranceBalance}
	// scopes are the values of the "-- scope:" key: spec settings a check
	// reads besides those it requires.
	scopes = []string{ScopeAllowEmpty}
	notes  = []string{NotePartialNullIDs}
)

func parse(name, text string) (*Check, error) {
	f, err := sqlfile.Parse(name, text, checkKeys, funcs)
	if err != nil {
		return nil, err
	}
	c := &Check{File: name, ID: f.Value("check"), Description: f.Value("description"), file: f}
	for _, a := range f.List("assertion") {
		if a != "completeness" && a != "accuracy" {
			return nil, fmt.Errorf("%s:%d: assertion %q: want completeness or accuracy", name, f.Line("assertion"), a)
		}
		c.Assertion = append(c.Assertion, a)
	}
	for _, r := range f.List("requires") {
		r := Requirement(r)
		if !knownRequirements[r] {
			return nil, fmt.Errorf("%s:%d: requires %q: want id, measures, group_by, checkpoint, logical_key, reperform, watermark, emission, records, compare, normalize, normalize_keys, bad_records, commit_history, duplicates, postings, balance_grain or opening", name, f.Line("requires"), r)
		}
		c.Requires = append(c.Requires, r)
	}
	switch sev := f.Value("severity"); sev {
	case "info":
		c.Info = true
	case "error", "":
	default:
		return nil, fmt.Errorf("%s:%d: severity %q: want error or info", name, f.Line("severity"), sev)
	}
	if c.Chart = f.Value("chart"); c.Chart != "" && !slices.Contains(charts, c.Chart) {
		return nil, fmt.Errorf("%s:%d: chart %q: want %s", name, f.Line("chart"), c.Chart, strings.Join(charts, ", "))
	}
	if c.Finding = f.Value("finding"); c.Finding != "" && !slices.Contains(findings, c.Finding) {
		return nil, fmt.Errorf("%s:%d: finding %q: want %s", name, f.Line("finding"), c.Finding, strings.Join(findings, ", "))
	}
	if c.Tolerance = f.Value("tolerance"); c.Tolerance != "" && !slices.Contains(tolKinds, c.Tolerance) {
		return nil, fmt.Errorf("%s:%d: tolerance %q: want %s", name, f.Line("tolerance"), c.Tolerance, strings.Join(tolKinds, ", "))
	}
	if c.Totals = f.Value("totals"); c.Totals != "" && c.Totals != TotalsRepeatedIDs && c.Totals != TotalsNullIDs {
		return nil, fmt.Errorf("%s:%d: totals %q: want %s or %s", name, f.Line("totals"), c.Totals, TotalsRepeatedIDs, TotalsNullIDs)
	}
	for _, sc := range f.List("scope") {
		if !slices.Contains(scopes, sc) {
			return nil, fmt.Errorf("%s:%d: scope %q: want %s", name, f.Line("scope"), sc, strings.Join(scopes, ", "))
		}
		c.Scope = append(c.Scope, sc)
	}
	for _, r := range f.List("reads") {
		if r != ReadsIDCounts {
			return nil, fmt.Errorf("%s:%d: reads %q: want %s", name, f.Line("reads"), r, ReadsIDCounts)
		}
		c.Reads = append(c.Reads, r)
	}
	c.Writes = f.List("writes")
	if c.Replaces = f.Value("replaces"); c.Replaces != "" && (c.Replaces == c.ID || strings.ContainsAny(c.Replaces, " ,")) {
		return nil, fmt.Errorf("%s:%d: replaces %q: want the id of one other check", name, f.Line("replaces"), c.Replaces)
	}
	for _, n := range f.List("notes") {
		if !slices.Contains(notes, n) {
			return nil, fmt.Errorf("%s:%d: notes %q: want %s", name, f.Line("notes"), n, strings.Join(notes, ", "))
		}
		c.Notes = append(c.Notes, n)
	}
	seen := map[string]bool{}
	for _, item := range f.List("columns") {
		col, role, ok := strings.Cut(item, "=")
		col, role = strings.TrimSpace(col), strings.TrimSpace(role)
		switch {
		case !ok || col == "":
			return nil, fmt.Errorf("%s:%d: columns %q: want column=role", name, f.Line("columns"), item)
		case strings.Count(col, "*") > 1:
			return nil, fmt.Errorf("%s:%d: columns %q: a pattern has one * (the measure or aggregate)", name, f.Line("columns"), item)
		case !slices.Contains(Roles, role):
			return nil, fmt.Errorf("%s:%d: columns %q: role %q: want %s", name, f.Line("columns"), item, role, strings.Join(Roles, ", "))
		case seen[col]:
			return nil, fmt.Errorf("%s:%d: columns: %s is given a role twice", name, f.Line("columns"), col)
		}
		seen[col] = true
		c.Roles = append(c.Roles, ColumnRole{Name: col, Role: role})
	}
	if want := sqlfile.IDOf(name); c.ID != want {
		return nil, fmt.Errorf("%s: header says check %q; it must equal the file name %q", name, c.ID, want)
	}
	if len(c.Assertion) == 0 {
		return nil, fmt.Errorf("%s: no -- assertion: line", name)
	}
	return c, nil
}

// columns gives each column of the check's exception table its role: the
// check's "-- columns:" entry of that name, else the spec's (an id, a
// group, a logical-key, then the checkpoint column), else the first
// "-- columns:" pattern whose * matches a measure or an aggregate of p
// (which becomes Measure).
func (c *Check) columns(cols []duck.Column, p *Params) []Column {
	var aggregates []string
	var groups []string
	groups = append(groups, p.GroupBy...)
	if p.Replay != nil {
		aggregates = p.Replay.Columns()
		groups = append(groups, p.Replay.GroupBy...)
	}
	out := make([]Column, len(cols))
	for i, col := range cols {
		out[i] = Column{Name: col.Name, Type: col.Type}
		o := &out[i]
		if j := slices.IndexFunc(c.Roles, func(r ColumnRole) bool { return r.Name == col.Name }); j >= 0 {
			o.Role = c.Roles[j].Role
			continue
		}
		switch {
		case slices.Contains(p.ID, col.Name):
			o.Role = RoleID
			continue
		case slices.Contains(groups, col.Name):
			o.Role = RoleGroup
			continue
		case slices.Contains(p.LogicalKey, col.Name):
			o.Role = RoleKey
			continue
		case p.Checkpoint != "" && col.Name == p.Checkpoint:
			o.Role = RoleCheckpoints
			continue
		case slices.Contains(c.Requires, NeedDuplicates) && slices.Contains(p.Duplicates, col.Name):
			o.Role = RoleKey
			continue
		}
		for _, r := range c.Roles {
			prefix, suffix, ok := strings.Cut(r.Name, "*")
			if !ok || len(col.Name) <= len(prefix)+len(suffix) || !strings.HasPrefix(col.Name, prefix) || !strings.HasSuffix(col.Name, suffix) {
				continue
			}
			m := col.Name[len(prefix) : len(col.Name)-len(suffix)]
			if slices.Contains(p.Measures, m) || slices.Contains(aggregates, m) {
				o.Role, o.Measure = r.Role, m
				break
			}
		}
	}
	return out
}

// tolerances are the declared tolerances check c applies for p (its
// "-- tolerance:" key), by column name.
func (c *Check) tolerances(p *Params) []ToleranceNote {
	var out []ToleranceNote
	switch c.Tolerance {
	case ToleranceCompare:
		for _, cc := range p.Compared {
			if cc.Tol != nil {
				out = append(out, ToleranceNote{Column: cc.Name, Tolerance: cc.Tol.Text})
			}
		}
	case ToleranceBalance:
		for _, m := range p.Measures {
			if t := p.BalanceTolerance[m]; t != nil {
				out = append(out, ToleranceNote{Column: m, Tolerance: t.Text})
			}
		}
	}
	return out
}

// Render returns the check's SQL for p.
func (c *Check) Render(p *Params) (string, error) {
	return c.file.Render(p)
}

// Missing returns the requirements p does not meet.
func (c *Check) Missing(p *Params) []Requirement {
	var miss []Requirement
	for _, r := range c.Requires {
		ok := true
		switch r {
		case NeedID:
			ok = len(p.ID) > 0
		case NeedMeasures:
			ok = len(p.Measures) > 0
		case NeedGroupBy:
			ok = len(p.GroupBy) > 0
		case NeedCheckpoint:
			ok = p.Checkpoint != ""
		case NeedLogicalKey:
			ok = len(p.LogicalKey) > 0
		case NeedReperform:
			ok = p.Replay != nil
		case NeedWatermark:
			ok = p.Replay != nil && p.Replay.Watermark != ""
		case NeedEmission:
			ok = p.Replay != nil && p.Replay.LastBy != ""
		case NeedRecords:
			ok = p.Replay == nil
		case NeedCompare:
			ok = len(p.Compared) > 0
		case NeedBadRecords:
			ok = p.BadRecords
		case NeedCommitHistory:
			ok = p.CommitHistory
		case NeedDuplicates:
			ok = len(p.Postings) > 0
		case NeedPostings:
			ok = p.Grain(SourceTable) == GrainPosting && p.Grain(SinkTable) == GrainPosting
		case NeedBalanceGrain:
			ok = len(p.BalanceInputs()) > 0
		case NeedOpening:
			ok = p.Opening
		}
		if !ok {
			miss = append(miss, r)
		}
	}
	return miss
}

// Applies reports whether c is made for the kind of sink p describes: window
// checks (requires: reperform) apply only to a re-performed windowed sink,
// record checks (requires: id or records) only to a sink of records, a
// check of normalised matches (requires: normalize) only when a compared
// or an id column is normalised, one of normalised keys (requires:
// normalize_keys) only when an id or group column is, a check of
// repeated postings (requires: duplicates) to a control that names
// duplicates: or has no id (see NeedDuplicates), never to a windowed sink,
// and the checks of a balance control's balance-grain inputs (requires:
// balance_grain) and opening (requires: opening) only when it has them.
// A check that applies but lacks configuration is
// Skipped instead.
func (c *Check) Applies(p *Params) bool {
	windowed := p.Replay != nil && len(p.ID) == 0
	for _, r := range c.Requires {
		switch {
		case r == NeedReperform && p.Replay == nil:
			return false
		case (r == NeedID || r == NeedRecords) && windowed:
			return false
		case r == NeedNormalize && len(p.Normalized()) == 0 && len(p.NormalizedID()) == 0:
			return false
		case r == NeedNormalizeKeys && len(p.KeyNormalize) == 0:
			return false
		case r == NeedBadRecords && !p.BadRecords:
			return false
		case r == NeedCommitHistory && !p.CommitHistory:
			return false
		case r == NeedDuplicates && (windowed || len(p.Duplicates) == 0 && len(p.ID) > 0):
			return false
		case r == NeedBalanceGrain && len(p.BalanceInputs()) == 0:
			return false
		case r == NeedOpening && !p.Opening:
			return false
		}
	}
	return true
}
