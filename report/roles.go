package report

import (
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// The charts of report.html a check can feed (evidence.Check.Chart).
const (
	chartBalance        = "balance"
	chartReplayedKeys   = "replayed_keys"
	chartWindowTimeline = "window_timeline"
	chartReperformance  = "reperformance"
)

// Roles the reperformance chart needs: the column naming each row's
// aggregate, and the one classifying the finding (checks.RoleMeasure and
// checks.RoleFinding, which the check files declare).
const (
	roleAggregate = checks.RoleMeasure
	roleFinding   = checks.RoleFinding
)

// chartOf is the chart check c feeds: the check file's own (Chart), else
// the built-in check's until every check file declares one. It is the one
// place in report that names a check id.
func chartOf(c *evidence.Check) string {
	if c.Chart != "" {
		return c.Chart
	}
	switch c.ID {
	case "row_count_balance", "sum_balance":
		return chartBalance
	case "key_checkpoint_conflicts", "duplicate_keys":
		return chartReplayedKeys
	case "reperformance_mismatches":
		return chartReperformance
	case "missing_keys", "unexpected_keys", "early_writes":
		return chartWindowTimeline
	}
	return ""
}

// roleOf is the role and measure of column col of check c: as the check
// declares it (Column.Role), else legacyRole's. Every renderer reads roles
// through the view, which asks here.
func roleOf(c *evidence.Check, col evidence.Column, p *evidence.Parameters) (role, measure string) {
	if col.Role != "" {
		return col.Role, col.Measure
	}
	return legacyRole(c.ID, col.Name, p)
}

// legacyRole gives the built-in checks' columns the roles their files do
// not declare yet: by the spec's columns (record id, logical key, group
// columns) and by the output column names of queries/*.sql. It is the one
// place in report that names an output column; it goes away once every
// check file declares its roles.
func legacyRole(check, name string, p *evidence.Parameters) (role, measure string) {
	if p != nil {
		switch {
		case slices.Contains(p.ID, name):
			return checks.RoleID, ""
		case slices.Contains(p.LogicalKey, name):
			return checks.RoleKey, ""
		case slices.Contains(p.GroupBy, name), p.Reperform != nil && slices.Contains(p.Reperform.GroupBy, name):
			return checks.RoleGroup, ""
		}
	}
	switch name {
	case "checkpoint_ids", "first_checkpoint":
		return checks.RoleCheckpoints, ""
	case "restart":
		return checks.RoleRestart, ""
	case "window_start":
		return checks.RoleWindowStart, ""
	case "window_end":
		return checks.RoleWindowEnd, ""
	case "location", "locations", "source_location", "sink_location", "sink_locations", "first_source_location":
		return checks.RoleLocation, ""
	}
	switch check {
	case "row_count_balance":
		switch name {
		case "source_rows":
			return checks.RoleSource, ""
		case "sink_rows":
			return checks.RoleSink, ""
		case "difference":
			return checks.RoleDifference, ""
		}
	case "reperformance_mismatches":
		switch name {
		case "expected":
			return checks.RoleSource, ""
		case "sink_sum":
			return checks.RoleSink, ""
		case "difference":
			return checks.RoleDifference, ""
		case "aggregate":
			return roleAggregate, ""
		case "finding":
			return roleFinding, ""
		}
	}
	if p != nil {
		var measures []string
		measures = append(measures, p.Measures...)
		if p.Reperform != nil {
			for _, a := range p.Reperform.Aggregates {
				measures = append(measures, a.Column)
			}
		}
		for _, m := range measures {
			switch name {
			case "source_" + m, "expected_" + m:
				return checks.RoleSource, m
			case "sink_" + m:
				return checks.RoleSink, m
			case "difference_" + m:
				return checks.RoleDifference, m
			}
		}
	}
	return "", ""
}

// Kind is how the values of an exception column are read.
type Kind int

const (
	// KindText: text, shown exactly as written.
	KindText Kind = iota
	// KindNumber: a plain decimal number ("-12.50", "3000").
	KindNumber
	// KindTime: a date or timestamp, an instant in UTC.
	KindTime
)

// textRoles are the roles whose values are text whatever their type: an
// id, a group, a logical key or checkpoint ids are compared as written
// (007 is not 7), and locations are file:line text.
var textRoles = []string{checks.RoleID, checks.RoleGroup, checks.RoleKey, checks.RoleCheckpoints, checks.RoleLocation}

// figureRoles are the roles of a source, sink or difference figure.
var figureRoles = []string{checks.RoleSource, checks.RoleSink, checks.RoleDifference}

// kindOf is how column values of DuckDB type typ and role role are read:
// text for the text roles; numbers for integer, decimal and floating-point
// types, and for a figure rendered as text (a re-performed value is VARCHAR
// because it holds a count on one row and a sum on the next); dates and
// timestamps as instants; anything else (VARCHAR, BOOLEAN, INTERVAL,
// lists, …) as text. A value that does not read as its column's kind stays
// exact text (see Cell).
func kindOf(typ, role string) Kind {
	if slices.Contains(textRoles, role) {
		return KindText
	}
	t := strings.ToUpper(strings.TrimSpace(typ))
	switch {
	case strings.HasPrefix(t, "DECIMAL"), strings.HasPrefix(t, "NUMERIC"):
		return KindNumber
	case slices.Contains([]string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE"}, t):
		return KindNumber
	case slices.Contains([]string{"DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS"}, t):
		return KindTime
	case t == "VARCHAR" && slices.Contains(figureRoles, role):
		return KindNumber
	}
	return KindText
}
