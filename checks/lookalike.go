package checks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/reconcile-dev/reconcile/sources"
)

// lookAlikeErrors refuses each source column and sink column, both left
// uncompared as a column of one input only (un: ReasonOnlySource,
// ReasonOnlySink), whose names look alike: they differ only in case
// (Status, status), in white space around them (" amount", amount: a CSV
// header written "id, amount") or in invisible characters and Unicode
// normalisation (visibleName). Names are matched exactly, so neither would
// be compared, and the run would pass with a value changed in a column both
// inputs evidently have (issue 30, item 10; it was a WARNING note). Each
// message names both columns and the lines that resolve it: the rename:
// that makes them one compared column (under a name no column of either
// input has, lower-cased as DuckDB matches names: source and sink), or the
// ignore: that leaves both out. PlanComparison applies it when compare: is
// not given; with compare:, a column it does not list is left out by the
// spec, and Prepare's WARNING note (caseOnlyNotes) still points at the pair.
func lookAlikeErrors(un []UncomparedColumn, source, sink []sources.Column) []string {
	taken := map[string]bool{}
	for _, cols := range [][]sources.Column{source, sink} {
		for _, c := range cols {
			taken[strings.ToLower(c.Name)] = true
		}
	}
	const why = "names are matched exactly, so neither would be compared, and a control must not pass without looking at a column both inputs evidently have"
	var errs []string
	for _, s := range un {
		if s.Reason != ReasonOnlySource {
			continue
		}
		for _, k := range un {
			if k.Reason != ReasonOnlySink {
				continue
			}
			switch {
			case !strings.EqualFold(strings.TrimSpace(s.Name), strings.TrimSpace(k.Name)):
				if strings.EqualFold(visibleName(s.Name), visibleName(k.Name)) {
					errs = append(errs, fmt.Sprintf("column %+q of the source and %+q of the sink look alike but differ in invisible characters (zero-width, byte-order mark) or in Unicode normalisation (é as one code point or as e and a combining accent): %s (code point by code point); to compare them, rename: %s, or to leave both uncompared, ignore: [%s, %s]",
						s.Name, k.Name, why, paddedRename(s.Name, k.Name, taken, "%+q"), yamlName(s.Name, "%+q"), yamlName(k.Name, "%+q")))
				}
			case strings.EqualFold(s.Name, k.Name):
				to := freeName(k.Name+"_value", taken)
				errs = append(errs, fmt.Sprintf("column %s of the source and %s of the sink differ only in case: %s; to compare them, rename both to one new name (source: {rename: {%s: %s}}, sink: {rename: {%s: %s}}), or to leave both uncompared, ignore: [%s, %s]",
					s.Name, k.Name, why, s.Name, to, k.Name, to, yamlName(s.Name, "%q"), yamlName(k.Name, "%q")))
			default:
				errs = append(errs, fmt.Sprintf("column %q of the source and %q of the sink differ only in white space around the name%s: %s; to compare them, rename: %s, or to leave both uncompared, ignore: [%s, %s]",
					s.Name, k.Name, alsoCase(s.Name, k.Name), why, paddedRename(s.Name, k.Name, taken, "%q"), yamlName(s.Name, "%q"), yamlName(k.Name, "%q")))
			}
		}
	}
	return errs
}

// plainName is a column name YAML reads as itself without quotes.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// yamlName is name as an item of a YAML flow sequence (ignore: [a, b]):
// as it is when plain, else quoted with verb (%q, or %+q to escape every
// code point beyond ASCII; both valid in YAML's double quotes).
func yamlName(name, verb string) string {
	if plainName.MatchString(name) {
		return name
	}
	return fmt.Sprintf(verb, name)
}
