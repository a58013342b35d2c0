package spec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The keys of a spec that say how the attributes of matched records are
// compared (accuracy: ISA 315's "recorded amounts and other data are
// recorded appropriately"), and when an empty input is legitimate:
//
//	compare: [status, amount]        the columns compared on every matched id (default: every
//	                                 column present in both inputs but the id, checkpoint and
//	                                 logical-key columns)
//	ignore: [posted_at]              or: columns removed from that default
//	normalize: {name: [trim, casefold], entry_id: [strip_leading_zeros]}
//	                                 text columns compared, and text id and group columns
//	                                 matched and grouped, after trimming / lower-casing /
//	                                 removing leading zeros
//	tolerance: {amount: 0.01, fx_rate: "0.1%", settled_at: 2s}
//	tolerance: {default: 0.01, fx_rate: "0.1%"}   default: every compared column not named that it can apply to
//	balance_tolerance: {amount: 1.00}     for sum_balance, per group and in total
//	balance_tolerance: {default: 1.00}    every measure not named
//	allow_empty: [sink]              an input that may hold no records (source, sink)

// The normalisations a text column can be compared after, and a text id
// or group column matched and grouped after (normalize:). However a spec
// lists them, they apply in one order — trim, then strip_leading_zeros,
// then casefold — and a value they leave empty is NULL
// (queries/rules/normalized_text.sql). Source: issue 31, item 4.
const (
	// NormalizeTrim drops leading and trailing ASCII white space before
	// comparing: space, tab, CR, LF and FF (RE2's \s; not VT, U+000B, nor a
	// no-break space).
	NormalizeTrim = "trim"
	// NormalizeCasefold compares lower-cased text (DuckDB's lower(), the
	// Unicode lower-case mapping).
	NormalizeCasefold = "casefold"
	// NormalizeStripLeadingZeros removes the '0' characters a text value
	// starts with, for ids that one system pads ("00042" is "42", "007A"
	// is "7A"); a value of zeros only becomes "0". Nothing else is read:
	// "-007" and " 07" keep their zeros (list trim too for the second, which
	// trims first). Only text is normalised: an integer 007 is 7 already.
	NormalizeStripLeadingZeros = "strip_leading_zeros"
)

// ToleranceDefault is the key of tolerance: and balance_tolerance: that
// is not a column: tolerance: {default: 0.01} applies 0.01 to every
// compared column the spec does not name whose comparison takes a
// tolerance of that kind (an amount or a percentage: numbers; a duration:
// timestamps and dates; see checks.PlanComparison), and the other
// compared columns are compared exactly, with the reason in the evidence;
// balance_tolerance: {default: 1.00} applies to every measure not named.
// A column literally named default in both inputs (or a measure of that
// name, for balance_tolerance:) makes the key ambiguous, and the spec is
// refused (rename: the column). Source: issue 31, item 5.
const ToleranceDefault = "default"

// TolerancesOf returns m's tolerances by column, without the default
// (ToleranceDefault), and the default (nil when none).
func TolerancesOf(m map[string]Tolerance) (named map[string]Tolerance, def *Tolerance) {
	for k, t := range m {
		if k == ToleranceDefault {
			def = &t
			continue
		}
		if named == nil {
			named = map[string]Tolerance{}
		}
		named[k] = t
	}
	return named, def
}

// Normalizations are the normalisations normalize: accepts, in the order
// they apply.
var Normalizations = []string{NormalizeTrim, NormalizeStripLeadingZeros, NormalizeCasefold}

// The kinds of Tolerance.
const (
	// ToleranceAbsolute: |sink − source| ≤ Amount, exact decimal.
	ToleranceAbsolute = "absolute"
	// ToleranceRelative: |sink − source| ≤ |source| × Amount, exact
	// decimal; written as a percentage ("0.1%", Amount "0.001").
	ToleranceRelative = "relative"
	// ToleranceDuration: two instants at most Duration apart.
	ToleranceDuration = "duration"
)

// Tolerance is one declared tolerance of tolerance: or balance_tolerance:,
// read from the YAML scalar's text (never through a float): an absolute
// amount ("0.01"), a share of the source value ("0.1%") or a duration
// ("2s", "500ms", "1d"; see ParseDuration). It is never negative.
type Tolerance struct {
	// Text is the tolerance as the spec writes it.
	Text string
	// Kind is ToleranceAbsolute, ToleranceRelative or ToleranceDuration.
	Kind string
	// Amount is, for an absolute tolerance, the amount as a plain decimal
	// ("0.01"); for a relative one, the fraction of the source value
	// ("0.1%" → "0.001"). "" for a duration.
	Amount string
	// Duration is a duration tolerance (0 otherwise).
	Duration Duration
}

var (
	plainDecimal = regexp.MustCompile(`^(\d+(\.\d*)?|\.\d+)$`)
	percentage   = regexp.MustCompile(`^(\d+(\.\d*)?|\.\d+)\s*%$`)
)

// ParseTolerance reads one tolerance: a plain non-negative decimal, a
// percentage, or a duration.
func ParseTolerance(s string) (Tolerance, error) {
	t := Tolerance{Text: s}
	v := strings.TrimSpace(s)
	switch {
	case plainDecimal.MatchString(v):
		t.Kind, t.Amount = ToleranceAbsolute, canonicalDecimal(v)
	case percentage.MatchString(v):
		t.Kind, t.Amount = ToleranceRelative, percentOf(strings.TrimSpace(strings.TrimSuffix(v, "%")))
	default:
		d, err := ParseDuration(v)
		if err != nil || d < 0 {
			return t, fmt.Errorf("tolerance %q: want an amount (0.01), a percentage of the source value (\"0.1%%\") or a duration (2s, 500ms, 1d)", s)
		}
		t.Kind, t.Duration = ToleranceDuration, d
	}
	return t, nil
}

// UnmarshalYAML reads the scalar as written (1.00 stays "1.00").
func (t *Tolerance) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a tolerance is one value: 0.01, \"0.1%%\" or 2s", n.Line)
	}
	v, err := ParseTolerance(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*t = v
	return nil
}

// MarshalYAML writes the tolerance as the spec wrote it.
func (t Tolerance) MarshalYAML() (any, error) { return t.Text, nil }

// MarshalText writes the tolerance as the spec wrote it (JSON keeps it as
// text).
func (t Tolerance) MarshalText() ([]byte, error) { return []byte(t.Text), nil }

// ambiguousDefault is the message refusing key (tolerance or
// balance_tolerance) whose default: could be a column named default
// (why: where that column is named) or the default (what).
func ambiguousDefault(key, why, what string) string {
	return fmt.Sprintf("%s.default is ambiguous: %s default, so it could be that column's tolerance or the %s; rename the column (rename: {default: …} on each input) and name it by its new name", key, why, what)
}

// AmbiguousDefault is the message refusing tolerance: {default: …} when
// both inputs have a column named default (checks.PlanComparison).
func AmbiguousDefault() string {
	return ambiguousDefault("tolerance", "both inputs have a column named", "default tolerance for every compared column not named")
}

// canonicalDecimal writes a plain decimal with a leading digit (".5" →
// "0.5", "2." → "2").
func canonicalDecimal(v string) string {
	v = strings.TrimSuffix(v, ".")
	if strings.HasPrefix(v, ".") {
		v = "0" + v
	}
	return v
}

// percentOf is the fraction p/100 of a plain decimal p, exactly, as a plain
// decimal ("0.1" → "0.001", "25" → "0.25", "150" → "1.50").
func percentOf(p string) string {
	p = canonicalDecimal(p)
	intPart, frac, _ := strings.Cut(p, ".")
	intPart = strings.TrimLeft(intPart, "0")
	for len(intPart) < 2 {
		intPart = "0" + intPart
	}
	whole, cents := intPart[:len(intPart)-2], intPart[len(intPart)-2:]
	if whole == "" {
		whole = "0"
	}
	return whole + "." + cents + frac
}

// Empty-input sides of allow_empty:.
const (
	RoleSource = "source"
	RoleSink   = "sink"
	// RoleOpening is a roll-forward's third input (opening:).
	RoleOpening = "opening"
)

// validateAccuracy checks compare, ignore, normalize, tolerance,
// balance_tolerance and allow_empty as far as the spec alone can; the
// columns and their types are checked against the inputs (checks.Plan).
func (s *Spec) validateAccuracy() []string {
	var errs []string
	records := s.Reperform == nil
	if !records {
		for _, k := range []struct {
			key string
			set bool
		}{{"compare", len(s.Compare) > 0}, {"ignore", len(s.Ignore) > 0}, {"normalize", len(s.Normalize) > 0}, {"tolerance", len(s.Tolerance) > 0}} {
			if k.set {
				errs = append(errs, k.key+" applies to a sink of records (id:); a windowed sink is re-performed (reperform:)")
			}
		}
	}
	if len(s.Compare) > 0 && len(s.Ignore) > 0 {
		errs = append(errs, "give compare (the columns compared) or ignore (columns removed from the default: every column in both inputs), not both")
	}
	for _, f := range []struct {
		field string
		cols  []string
	}{{"compare", s.Compare}, {"ignore", s.Ignore}} {
		seen := map[string]bool{}
		for _, c := range f.cols {
			switch {
			case c == "":
				errs = append(errs, f.field+": empty column name")
			case seen[c]:
				errs = append(errs, f.field+": column "+c+" named twice")
			case slices.Contains(s.ID, c):
				errs = append(errs, fmt.Sprintf("%s: column %s is an id column: ids are matched, not compared", f.field, c))
			}
			seen[c] = true
		}
	}
	for _, col := range slices.Sorted(maps.Keys(s.Normalize)) {
		ns := s.Normalize[col]
		if len(ns) == 0 {
			errs = append(errs, fmt.Sprintf("normalize.%s: list at least one of trim, casefold, strip_leading_zeros", col))
		}
		seen := map[string]bool{}
		for _, n := range ns {
			if !slices.Contains(Normalizations, n) {
				errs = append(errs, fmt.Sprintf("normalize.%s: %q: want trim, casefold or strip_leading_zeros", col, n))
			} else if seen[n] {
				errs = append(errs, fmt.Sprintf("normalize.%s: %s named twice", col, n))
			}
			seen[n] = true
		}
		// An id or group column is matched and grouped after normalising
		// whether or not it is compared.
		if slices.Contains(s.Ignore, col) && !slices.Contains(s.ID, col) && !slices.Contains(s.GroupBy, col) {
			errs = append(errs, fmt.Sprintf("normalize.%s: the column is in ignore, so it is not compared (and it is no id or group_by column)", col))
		}
	}
	for _, col := range slices.Sorted(maps.Keys(s.Tolerance)) {
		switch {
		case col == ToleranceDefault && slices.Contains(s.Compare, col):
			errs = append(errs, ambiguousDefault("tolerance", "compare: names a column", "default tolerance for every compared column not named"))
		case col == ToleranceDefault:
		case slices.Contains(s.Ignore, col):
			errs = append(errs, fmt.Sprintf("tolerance.%s: the column is in ignore, so it is not compared", col))
		}
	}
	for _, m := range slices.Sorted(maps.Keys(s.BalanceTolerance)) {
		t := s.BalanceTolerance[m]
		if m == ToleranceDefault && slices.Contains(s.Measures, m) {
			errs = append(errs, ambiguousDefault("balance_tolerance", "measures: names a column", "default balance tolerance for every measure not named"))
		} else if m == ToleranceDefault {
			if t.Kind == ToleranceDuration {
				errs = append(errs, fmt.Sprintf("balance_tolerance.default: %s is a duration; a sum takes an amount (1.00) or a percentage of the source sum (\"0.1%%\")", t.Text))
			}
			continue
		}
		if !slices.Contains(s.Measures, m) {
			errs = append(errs, fmt.Sprintf("balance_tolerance.%s: not a measure (measures: %s); sum_balance balances measures only", m, strings.Join(s.Measures, ", ")))
		}
		if t.Kind == ToleranceDuration {
			errs = append(errs, fmt.Sprintf("balance_tolerance.%s: %s is a duration; a sum takes an amount (1.00) or a percentage of the source sum (\"0.1%%\")", m, t.Text))
		}
	}
	seen := map[string]bool{}
	for _, side := range s.AllowEmpty {
		if side == RoleOpening && s.Opening == nil {
			errs = append(errs, "allow_empty: opening: the spec has no opening:")
		} else if side != RoleSource && side != RoleSink && side != RoleOpening {
			want := "source and/or sink"
			if s.Opening != nil {
				want = "source, sink and/or opening"
			}
			errs = append(errs, fmt.Sprintf("allow_empty: %q: want %s", side, want))
		} else if seen[side] {
			errs = append(errs, "allow_empty: "+side+" named twice")
		}
		seen[side] = true
	}
	return errs
}
