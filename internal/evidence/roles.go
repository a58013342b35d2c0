package evidence

// The roles a column of a check's exception table can have
// (summary.json checks[].columns[].role). A check file gives them in its
// "-- columns:" key; the spec's id, group, logical-key and checkpoint
// columns get theirs from the spec (see package checks). Reports decide
// how to show a column from its role and type, never from its name.
const (
	// RoleID: a record id column.
	RoleID = "id"
	// RoleGroup: a group column (group_by, or reperform.group_by).
	RoleGroup = "group"
	// RoleKey: a logical-key column of the sink.
	RoleKey = "key"
	// RoleCheckpoints: checkpoint ids, one or several as 'a;b;c' in
	// ascending order (numeric when they are integers).
	RoleCheckpoints = "checkpoints"
	// RoleRestart: the label of the restart that explains the row
	// (restarts.restart, "restart 1 at … from checkpoint 97"), NULL when
	// none does.
	RoleRestart = "restart"
	// RoleWindowStart, RoleWindowEnd: the window of the row as instants
	// (TIMESTAMP WITH TIME ZONE), start inclusive, end exclusive.
	RoleWindowStart = "window_start"
	RoleWindowEnd   = "window_end"
	// RoleSource, RoleSink, RoleDifference: the source-side figure
	// (re-performed, for a windowed sink), the sink-side figure and their
	// difference (sink - source) of a measure, an aggregate or (Measure
	// "") the row count.
	RoleSource     = "source"
	RoleSink       = "sink"
	RoleDifference = "difference"
	// RoleDifferencePct: the difference of a measure (Measure) as a
	// percentage of its source-side figure, an exact DECIMAL rounded half
	// away from zero (queries/rules/percent_of.sql); NULL when that figure
	// is 0.
	RoleDifferencePct = "difference_pct"
	// RoleOpening: the opening balance of a measure (Measure), a
	// roll-forward's third input; RoleExpected: opening + the postings
	// (source), what the closing balance (sink) should be.
	RoleOpening  = "opening"
	RoleExpected = "expected"
	// RoleLocation: where rows are, 'file:line', several separated by ';'.
	RoleLocation = "location"
	// RoleMeasure: the column whose value names the measure or aggregate
	// the row's source, sink and difference columns belong to, when one
	// row per measure is returned (the re-performance check).
	RoleMeasure = "measure"
	// RoleFinding: the column that classifies each exception row (such as
	// each_row_right_repeated, rules/window_finding.sql).
	RoleFinding = "finding"
	// RoleColumn: the column whose value names the compared column a row's
	// values and difference belong to, when one row per column is returned
	// (value_mismatches: one row per id and differing column). With the
	// id columns it identifies the row.
	RoleColumn = "column"
	// RoleTolerance: the tolerance declared for the row's column or
	// measure, as the spec writes it ("0.01", "0.1%", "2s"); NULL when none.
	RoleTolerance = "tolerance"
	// RoleWithinTolerance: a BOOLEAN, true on a row whose difference is
	// within its declared tolerance. Such a row is listed in the
	// exceptions file but is not an exception (Check.WithinTolerance
	// counts them).
	RoleWithinTolerance = "within_tolerance"
	// RoleTotal: a BOOLEAN, true on the row of the grand total, whose group
	// columns are NULL, among rows per group.
	RoleTotal = "total"
)

// Roles lists every role, sorted.
var Roles = []string{RoleCheckpoints, RoleColumn, RoleDifference, RoleDifferencePct, RoleExpected, RoleFinding, RoleGroup, RoleID, RoleKey, RoleLocation, RoleMeasure,
	RoleOpening, RoleRestart, RoleSink, RoleSource, RoleTolerance, RoleTotal, RoleWindowEnd, RoleWindowStart, RoleWithinTolerance}

// The pictures a check can feed (summary.json checks[].chart, a check
// file's "-- chart:").
const (
	// ChartBalance: source vs sink in total and per group out of balance,
	// from the columns of roles source, sink and difference.
	ChartBalance = "balance"
	// ChartReplayedKeys: keys written again under a later checkpoint,
	// counted per sequence of checkpoint ids (role checkpoints), from one
	// failed check: the first with FindingReplay, else the first other.
	ChartReplayedKeys = "replayed_keys"
	// ChartReperformance: the re-performed value against the sink's per
	// window and aggregate (roles measure, source, sink, difference,
	// finding, window_start/window_end).
	ChartReperformance = "reperformance"
	// ChartRollForward: a roll-forward per group out of balance: the
	// opening balance, the postings and the closing balance (roles
	// opening, source, sink; expected and difference), per measure.
	ChartRollForward = "roll_forward"
)

// What a check's exceptions are (summary.json checks[].finding, a check
// file's "-- finding:").
const (
	// FindingReplay: findings of a stream job's replay, attributed to the
	// restart that explains them (roles restart or checkpoints) and keyed
	// by window (roles window_end and group).
	FindingReplay = "replay"
)
