package evidence

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ScopeField is one setting of the spec a check's answer depends on, as
// text: a check finds other exceptions when it changes, even from the same
// inputs.
type ScopeField struct {
	Name  string
	Value string
}

// CheckScope returns the settings a check looks with, beyond its key
// columns, from a run's summary.json parts: p its parameters, c its
// comparison (nil for a windowed sink), settings the check's
// "-- requires:" and "-- scope:" keys and tolerance its "-- tolerance:"
// key (package checks). By setting: id, group_by, checkpoint,
// logical_key and duplicates their columns in order (they make the key),
// an id or group column with normalize: with its normalisations
// ("entry_id (normalize strip_leading_zeros trim)": every check matches
// and groups by the normalised value); normalize_keys the id and the group
// so; measures the
// measures; reperform the re-performance (window, event time, aggregates,
// columns) and the spec's time zone; watermark and emission theirs;
// compare and normalize every compared column with its normalisations,
// tolerance and the zones its zone-less values were read in; allow_empty
// the inputs allowed to be empty; and the balance tolerance for
// "-- tolerance: balance". Each field once, in that order. Lists whose
// order means nothing (the measures, the aggregates, the compared columns,
// their normalisations, allow_empty) are sorted, so a column that moves in
// an input, a field first seen later in a topic or a reordered compare:
// changes nothing; and a compared column's types, and the method they
// give it, are left out: they follow the values read (a scale the data
// widens, an integer column a writer makes DOUBLE, is no change of the
// check).
//
// The run history (package history) compares a check's scope with the
// previous run's: when it differs, the two runs looked for the check's
// exceptions differently, so an exception of the previous run that this
// one does not find is not "resolved" — it may no longer be looked for (a
// column added to ignore:).
func CheckScope(p *Parameters, c *Comparison, settings []string, tolerance string) []ScopeField {
	var out []ScopeField
	add := func(name, value string) {
		if !slices.ContainsFunc(out, func(f ScopeField) bool { return f.Name == name }) {
			out = append(out, ScopeField{name, value})
		}
	}
	sorted := func(l []string) string { return strings.Join(slices.Sorted(slices.Values(l)), ", ") }
	for _, r := range settings {
		switch r {
		case "id":
			add("id", keyText(p.ID, p.Normalize))
		case "measures":
			add("measures", sorted(p.Measures))
		case "group_by":
			add("group_by", keyText(p.GroupBy, p.Normalize))
		case "checkpoint":
			add("checkpoint", p.Checkpoint)
		case "logical_key":
			add("logical_key", strings.Join(p.LogicalKey, ", "))
		case "duplicates":
			add("duplicates", strings.Join(p.Duplicates, ", "))
		case "reperform":
			var r *Reperform
			if p.Reperform != nil {
				c := *p.Reperform
				c.Aggregates = slices.SortedFunc(slices.Values(c.Aggregates), func(a, b Aggregate) int { return strings.Compare(a.Column, b.Column) })
				r = &c
			}
			add("reperform", jsonText(r))
			add("time_zone", p.TimeZone)
		case "watermark":
			add("watermark", p.Watermark)
		case "emission":
			add("emission", jsonText(p.Emission))
		case "compare", "normalize":
			add("compared", comparedText(c))
		case "normalize_keys":
			add("id", keyText(p.ID, p.Normalize))
			add("group_by", keyText(p.GroupBy, p.Normalize))
		case "allow_empty":
			add("allow_empty", sorted(p.AllowEmpty))
		}
	}
	if tolerance == "balance" {
		var kv []string
		for _, m := range slices.Sorted(maps.Keys(p.BalanceTolerance)) {
			kv = append(kv, m+" "+p.BalanceTolerance[m])
		}
		add("balance_tolerance", strings.Join(kv, ", "))
	}
	return out
}

// ScopeChange says how scope cur differs from prev, field by field
// ("compared: a (text), b (text) → a (text)"), or "" when they are the
// same.
func ScopeChange(prev, cur []ScopeField) string {
	value := func(fs []ScopeField, name string) (string, bool) {
		for _, f := range fs {
			if f.Name == name {
				return f.Value, true
			}
		}
		return "", false
	}
	var names []string
	for _, fs := range [][]ScopeField{prev, cur} {
		for _, f := range fs {
			if !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
	}
	var diffs []string
	for _, n := range names {
		a, _ := value(prev, n)
		b, _ := value(cur, n)
		if a != b {
			diffs = append(diffs, fmt.Sprintf("%s: %s → %s", n, orNone(a), orNone(b)))
		}
	}
	return strings.Join(diffs, "; ")
}

// keyText lists key columns cols in order, each with its normalize: when
// it has one ("entry_id (normalize strip_leading_zeros trim)", the
// normalisations sorted): a key with none reads as it always did.
func keyText(cols []string, normalize map[string][]string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c
		if ns := normalize[c]; len(ns) > 0 {
			out[i] += " (normalize " + strings.Join(slices.Sorted(slices.Values(ns)), " ") + ")"
		}
	}
	return strings.Join(out, ", ")
}

// comparedText lists the compared columns by name as "name (normalize …,
// tolerance …, zones …)", or "" for none. Not their method: it follows the
// columns' types, which follow the values read (a writer that makes an
// integer column DOUBLE one night compares it as a float, and the check is
// the same).
func comparedText(c *Comparison) string {
	if c == nil || len(c.Compared) == 0 {
		return ""
	}
	var cols []string
	for _, col := range c.Compared {
		var how []string
		if len(col.Normalize) > 0 {
			how = append(how, "normalize "+strings.Join(slices.Sorted(slices.Values(col.Normalize)), " "))
		}
		if col.Tolerance != "" {
			how = append(how, "tolerance "+col.Tolerance)
		}
		if col.SourceZone != "" || col.SinkZone != "" {
			how = append(how, "zones "+orNone(col.SourceZone)+"/"+orNone(col.SinkZone))
		}
		if len(how) == 0 {
			cols = append(cols, col.Column)
		} else {
			cols = append(cols, col.Column+" ("+strings.Join(how, ", ")+")")
		}
	}
	slices.Sort(cols)
	return strings.Join(cols, ", ")
}

// jsonText is v as JSON (struct fields in order, map keys sorted), or ""
// for nil.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return ""
	}
	return string(b)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
