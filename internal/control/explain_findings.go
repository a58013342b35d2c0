package control

import (
	"context"
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
)

// Finding is one exception row of one check that carries the explained key:
// what `reconcile run` wrote on that row of exceptions/<check>.csv.
type Finding struct {
	// Check is the check's id (value_mismatches, duplicate_ids, …).
	Check string `json:"check"`
	// Status is the row's: "fail" (an exception of a failed check),
	// "info" (a check whose findings are for information, such as
	// normalized_matches), or "within_tolerance" (a row listed with the
	// exceptions whose difference is within a declared tolerance: not an
	// exception).
	Status string `json:"status"`
	// Values are the row's columns in the check's order, as text as the
	// exceptions file has them (exact decimals at their scale; NULL is
	// nil), but the key's own columns and those of roles tolerance and
	// within_tolerance, which Tolerance and Status give.
	Values []Value `json:"values"`
	// Tolerance is the tolerance the check applied to the row, as the spec
	// writes it ("0.01", "0.1%", "2s"), or "none declared"; "" for a
	// check that applies no tolerance.
	Tolerance string `json:"tolerance,omitempty"`
}

// findingsData is what explain/findings.sql renders: one exception table
// and how its rows are matched to the key.
type findingsData struct {
	Table string
	// Key: the record id columns and values (a check naming record ids).
	// Normalize is the spec's normalize: the exception rows hold an id
	// column with it normalised (checks.Prepare), so the key is too.
	Key       []KeyPart
	Normalize map[string][]string
	// WindowColumn, Instant and Groups: a window column, the key's window
	// edge as an instant, the group columns and values (a check naming
	// windows).
	WindowColumn, Instant string
	Groups                []KeyPart
	// LocationColumns and Locations: the columns listing locations and the
	// key's rows' locations (any other check listing locations).
	LocationColumns, Locations []string
}

// explainFindings sets ex.Findings: every row of every check's exception
// table (outcomes: the checks run in this session) that carries the key
// of ex, whatever the check — a check added to queries/ shows here with
// no change to explain. A row carries the key when its id columns (role
// id) hold the record id; for a windowed sink, when its window column
// (role window_end, else window_start) is the key's window and its group
// columns (role group) the key's groups; for a check whose rows name no
// record id or window (or not all of the key's columns), when one of its
// location columns (role location) lists a row of the key. A check whose
// rows carry none of these (a balance per group, the population) has no
// finding on a key.
func explainFindings(ctx context.Context, db *duck.DB, s *spec.Spec, outcomes []*checks.Outcome, ex *Explanation) error {
	var locs []string
	for _, rows := range [][]ExplainRow{ex.Source, ex.Sink} {
		for _, r := range rows {
			if r.Location != "" {
				locs = append(locs, r.Location)
			}
		}
	}
	for _, o := range outcomes {
		if o.Table == "" {
			continue
		}
		data, keyCols, ok := findingsMatch(o, s, ex, locs)
		if !ok {
			continue
		}
		cols, rows, err := db.StringsFile(ctx, explainSQL, queries.ExplainFindings, data)
		if err != nil {
			return err
		}
		for _, row := range rows {
			ex.Findings = append(ex.Findings, findingOf(o, cols, row, keyCols))
		}
	}
	return nil
}

// findingsMatch says how the rows of o's exception table are matched to
// the key of ex (see explainFindings), and which of its columns are the
// key's own (left out of a finding's values); ok is false when they cannot
// be.
func findingsMatch(o *checks.Outcome, s *spec.Spec, ex *Explanation, locs []string) (findingsData, map[string]bool, bool) {
	data := findingsData{Table: o.Table, Normalize: s.Normalize}
	keyCols := map[string]bool{}
	has := func(role, name string) bool {
		return slices.ContainsFunc(o.Columns, func(c checks.Column) bool { return c.Role == role && c.Name == name })
	}
	if s.Reperform == nil {
		all := len(s.ID) > 0
		for _, id := range s.ID {
			all = all && has(checks.RoleID, id)
		}
		if all {
			data.Key = ex.Key
			for _, id := range s.ID {
				keyCols[id] = true
			}
			return data, keyCols, true
		}
	} else if ex.Window != nil {
		instant := ex.Window.End
		c, ok := o.Column(checks.RoleWindowEnd, "")
		if !ok {
			instant = ex.Window.Start
			c, ok = o.Column(checks.RoleWindowStart, "")
		}
		groups := ex.Key[1:]
		for _, g := range groups {
			ok = ok && has(checks.RoleGroup, g.Column)
		}
		if ok {
			data.WindowColumn, data.Instant, data.Groups = c.Name, instant, groups
			for _, w := range o.Columns {
				if w.Role == checks.RoleWindowEnd || w.Role == checks.RoleWindowStart {
					keyCols[w.Name] = true
				}
			}
			for _, g := range groups {
				keyCols[g.Column] = true
			}
			return data, keyCols, true
		}
	}
	for _, c := range o.ColumnsWith(checks.RoleLocation) {
		data.LocationColumns = append(data.LocationColumns, c.Name)
	}
	if len(data.LocationColumns) == 0 || len(locs) == 0 {
		return data, nil, false
	}
	data.Locations = locs
	return data, keyCols, true
}

// findingOf is one matched exception row of o as a Finding.
func findingOf(o *checks.Outcome, cols []string, row []*string, keyCols map[string]bool) Finding {
	f := Finding{Check: o.ID, Status: string(o.Status), Values: []Value{}}
	var tolerance *string
	hasTolerance := false
	for i, c := range cols {
		role := ""
		if col, ok := columnNamed(o, c); ok {
			role = col.Role
		}
		switch role {
		case checks.RoleWithin:
			if deref(row[i]) == "true" {
				f.Status = "within_tolerance"
			}
			continue
		case checks.RoleTolerance:
			hasTolerance, tolerance = true, row[i]
			continue
		}
		if keyCols[c] {
			continue
		}
		f.Values = append(f.Values, Value{c, row[i]})
	}
	if o.ToleranceKey != "" || hasTolerance {
		f.Tolerance = "none declared"
		if tolerance != nil {
			f.Tolerance = *tolerance
		}
	}
	return f
}

// columnNamed is the column of o's exception table named name.
func columnNamed(o *checks.Outcome, name string) (checks.Column, bool) {
	for _, c := range o.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return checks.Column{}, false
}

// findingsVerdict ends a record's verdict with the checks that found
// something on it (their exceptions), those that note something for
// information, or says that none did.
func findingsVerdict(ex *Explanation) string {
	var failed, info []string
	within := false
	for _, f := range ex.Findings {
		switch {
		case f.Status == "within_tolerance":
			within = true
		case f.Status == string(checks.Info):
			if !slices.Contains(info, f.Check) {
				info = append(info, f.Check)
			}
		case !slices.Contains(failed, f.Check):
			failed = append(failed, f.Check)
		}
	}
	var out string
	if len(failed) > 0 {
		out += "; found by " + strings.Join(failed, ", ")
	}
	if len(info) > 0 {
		out += "; noted for information by " + strings.Join(info, ", ")
	}
	switch {
	case out != "":
		return out
	case within:
		return "; differences within the declared tolerance only"
	}
	return "; no check found anything on it"
}
