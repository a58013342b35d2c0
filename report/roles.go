package report

import (
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
	"github.com/reconcile-dev/reconcile/internal/evidence"
)

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
var textRoles = []string{evidence.RoleID, evidence.RoleGroup, evidence.RoleKey, evidence.RoleCheckpoints, evidence.RoleLocation}

// figureRoles are the roles of a source, sink or difference figure.
var figureRoles = []string{evidence.RoleSource, evidence.RoleSink, evidence.RoleDifference}

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
	case ducktype.IsInteger(t), t == "FLOAT", t == "DOUBLE":
		return KindNumber
	case slices.Contains([]string{"DATE", "TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS"}, t):
		return KindTime
	case t == "VARCHAR" && slices.Contains(figureRoles, role):
		return KindNumber
	}
	return KindText
}
