package checks

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// ErrIncomparable is returned (wrapped in ErrColumn's class, a usage error,
// exit code 2) for two columns whose types cannot be compared: a timestamp
// against an integer, binary floating point against an exact decimal.
var ErrIncomparable = fault.Usage.New("checks: incomparable column types")

// Method is how the values of a column in the source and in the sink are
// compared: what equality means for their two types (Comparison).
type Method string

// The comparison methods. Every one is NULL-safe: NULL equals NULL, NULL
// differs from any value.
const (
	// MethodText: text against text, byte for byte (no trimming, no case
	// folding unless the spec's normalize: asks; an empty text counts as
	// NULL, as CSV cannot tell the two apart). JSON is compared as its text.
	MethodText Method = "text"
	// MethodNumber: integers and decimals by exact value (0.0000 = 0),
	// as DECIMAL(38,s) with s the largest scale either input needs; text
	// read as a plain decimal number (a value that is not one is an
	// error naming file, line and value).
	MethodNumber Method = "number"
	// MethodFloat: binary floating point (FLOAT, DOUBLE) against binary
	// floating point, a number or text, at the precision of the narrower
	// floating-point side: both read as that type (IEEE 754, the nearest
	// value, as the writer of the column did) and compared by value. Values
	// that differ below that precision (9007199254740993 and
	// 9007199254740992 as a DOUBLE) are not told apart, and the notes say
	// so; no difference is computed. A text value that is not a number is an
	// error.
	MethodFloat Method = "float"
	// MethodBoolean: BOOLEAN against BOOLEAN or text read as a BOOLEAN
	// (DuckDB's cast: true/false, t/f, yes/no, y/n, 1/0, any case).
	MethodBoolean Method = "boolean"
	// MethodDate: DATE against DATE or ISO 8601 text read as a DATE.
	MethodDate Method = "date"
	// MethodTimestamp: timestamps as instants. A TIMESTAMP WITH TIME ZONE
	// is its instant; a zone-less TIMESTAMP is wall-clock time in its
	// input's zone (the input's time_zone:, else the spec's, else UTC); text
	// naming a zone or offset is that instant, text without one wall-clock
	// time in its input's zone. Two zone-less columns read in one zone are
	// compared as wall-clock values. Never compared as text.
	MethodTimestamp Method = "timestamp"
	// MethodValue: two columns of one other type (TIME, UUID, BLOB, lists,
	// structs, …) by DuckDB's equality for that type; a TIME or UUID against
	// text reads the text as that type (a TIME from a plain
	// H:MM[:SS[.fraction]] only: checkReadable).
	MethodValue Method = "value"
	// MethodInterval: INTERVAL against INTERVAL or text, field by field —
	// months, days and microseconds, each equal — never by DuckDB's
	// equality, which takes a month for 30 days and a day for 24 hours
	// (INTERVAL '1 month' = INTERVAL '30 days'; a MariaDB TIME 720:00:00, an
	// INTERVAL of 720 hours, equal to the text "1 month"). Text is read as an
	// INTERVAL only when it is a plain duration (integer parts with units, an
	// optional H:MM[:SS[.fraction]] last; rules/inexact_text.sql), else it is
	// an error naming file, line and value (checkReadable). Source: issue 30,
	// item 2.
	MethodInterval Method = "interval"
)

// family is what a DuckDB type is for comparing.
type family int

const (
	famOther family = iota
	famText
	famInteger
	famDecimal
	famFloat
	famBoolean
	famDate
	famZoneless
	famZoned
)

var familyNames = map[family]string{famText: "text", famInteger: "integer", famDecimal: "decimal", famFloat: "binary floating-point number",
	famBoolean: "boolean", famDate: "date", famZoneless: "zone-less timestamp", famZoned: "timestamp with time zone"}

var (
	decimalRE = regexp.MustCompile(`^(DECIMAL|NUMERIC)(\(\s*\d+\s*(,\s*\d+\s*)?\))?$`)
	// textCastable are the other types whose values DuckDB reads from text
	// exactly (TIME '10:00:00', a UUID, INTERVAL '1 day').
	textCastable = []string{"TIME", "UUID", "INTERVAL"}
)

func familyOf(typ string) family {
	t := strings.ToUpper(strings.TrimSpace(typ))
	switch {
	case t == "VARCHAR" || t == "TEXT" || t == "STRING" || t == "JSON" || strings.HasPrefix(t, "ENUM(") || strings.HasPrefix(t, "VARCHAR("):
		return famText
	case ducktype.IsIntegerName(t):
		return famInteger
	case decimalRE.MatchString(t):
		return famDecimal
	case t == "FLOAT" || t == "DOUBLE" || t == "REAL" || t == "FLOAT4" || t == "FLOAT8":
		return famFloat
	case t == "BOOLEAN" || t == "BOOL":
		return famBoolean
	case t == "DATE":
		return famDate
	case t == "TIMESTAMP" || t == "DATETIME" || t == "TIMESTAMP_S" || t == "TIMESTAMP_MS" || t == "TIMESTAMP_NS" || t == "TIMESTAMP_US":
		return famZoneless
	case t == "TIMESTAMP WITH TIME ZONE" || t == "TIMESTAMPTZ":
		return famZoned
	}
	return famOther
}

// Comparison is the rule that decides how a column typed sourceType in the
// source and sinkType in the sink (DuckDB type names, as loaded or as a
// sources.Schemer tells them before any row is read) is compared, per
// family of the two types:
//
//	source \ sink            text   integer/decimal  float  boolean  date  timestamp(tz)  other T
//	text                     text   number           float  boolean  date  timestamp      value (T ∈ TIME, UUID), interval (T = INTERVAL)
//	integer, decimal         number number           float  –        –     –              –
//	FLOAT, DOUBLE            float  float            float  –        –     –              –
//	BOOLEAN                  boolean –               –      boolean  –     –              –
//	DATE                     date   –                –      –        date  –              –
//	TIMESTAMP, TIMESTAMPTZ   timestamp –             –      –        –     timestamp      –
//	other T                  value  –                –      –        –     –              value (the same T), interval (INTERVAL)
//
// (the table is symmetric; – is incomparable). The methods are documented
// at their constants: text byte for byte, numbers by exact value, floats by
// IEEE value, booleans, dates, timestamps as instants, intervals field by
// field, any other type by DuckDB's equality for it. A date is not an instant (a day has no zone):
// DATE against a timestamp is incomparable; so is BLOB against text, which
// holds bytes in no one agreed encoding (hex, base64, escapes).
//
// The id, group and logical-key columns of a spec are matched with the same
// rule, except that a number against text is matched as text (the number
// rendered by DuckDB: 7 is "7", "007" stays "007"), so an id is never
// re-read from text (Prepare), and a floating-point column is matched only
// with the same floating-point type (PlanComparison refuses FLOAT or
// DOUBLE against any other type: matched as floats, distinct ids would be
// one).
//
// Comparison is pure: it reads no row. Errors wrap ErrIncomparable and say
// what each type is; the caller names the column.
func Comparison(sourceType, sinkType string) (Method, error) {
	fs, fk := familyOf(sourceType), familyOf(sinkType)
	either := func(f family) bool { return fs == f || fk == f }
	only := func(fams ...family) bool { return slices.Contains(fams, fs) && slices.Contains(fams, fk) }
	number := func(f family) bool { return f == famInteger || f == famDecimal }
	switch {
	case fs == famText && fk == famText:
		return MethodText, nil
	case (number(fs) || fs == famText) && (number(fk) || fk == famText):
		return MethodNumber, nil
	case either(famFloat) && only(famFloat, famInteger, famDecimal, famText):
		return MethodFloat, nil
	case only(famBoolean, famText):
		return MethodBoolean, nil
	case only(famDate, famText):
		return MethodDate, nil
	case only(famZoneless, famZoned, famText):
		return MethodTimestamp, nil
	case intervalPair(sourceType, sinkType):
		return MethodInterval, nil
	case fs == famOther && fk == famOther && strings.EqualFold(strings.TrimSpace(sourceType), strings.TrimSpace(sinkType)):
		return MethodValue, nil
	case fs == famOther && fk == famText && slices.Contains(textCastable, strings.ToUpper(strings.TrimSpace(sourceType))),
		fk == famOther && fs == famText && slices.Contains(textCastable, strings.ToUpper(strings.TrimSpace(sinkType))):
		return MethodValue, nil
	}
	hint := ""
	if either(famDate) && (either(famZoneless) || either(famZoned)) {
		hint = " (a date is a calendar day, a timestamp an instant: cast one in a query, or leave the column out with ignore:)"
	}
	if hint == "" {
		hint = " (leave the column out with ignore:, or cast it in a query)"
	}
	return "", fmt.Errorf("%w: %s cannot be compared with %s%s", ErrIncomparable, describe(sourceType, fs), describe(sinkType, fk), hint)
}

// floatTypeOf is the floating-point type two columns compared by
// MethodFloat are read as: FLOAT when either is a 32-bit FLOAT, else DOUBLE.
func floatTypeOf(a, b string) string {
	for _, t := range []string{a, b} {
		if u := strings.ToUpper(strings.TrimSpace(t)); u == "FLOAT" || u == "REAL" || u == "FLOAT4" {
			return "FLOAT"
		}
	}
	return "DOUBLE"
}

// describe names a type and its family: "BIGINT (an integer)".
func describe(typ string, f family) string {
	name, ok := familyNames[f]
	if !ok {
		return typ
	}
	article := "a"
	if strings.ContainsAny(name[:1], "aeiou") {
		article = "an"
	}
	return fmt.Sprintf("%s (%s %s)", typ, article, name)
}

// matchedAsText reports whether an id, group or logical-key column of
// these types is matched as text: a number against text (see Comparison).
func matchedAsText(sourceType, sinkType string) bool {
	fs, fk := familyOf(sourceType), familyOf(sinkType)
	number := func(f family) bool { return f == famInteger || f == famDecimal }
	return (number(fs) && fk == famText) || (fs == famText && number(fk))
}

// Tolerance is a declared tolerance (spec.Tolerance): an absolute amount,
// a share of the source value or a duration.
type Tolerance = spec.Tolerance

// The kinds of Tolerance.
const (
	ToleranceAbsolute = spec.ToleranceAbsolute
	ToleranceRelative = spec.ToleranceRelative
	ToleranceDuration = spec.ToleranceDuration
)

// ComparedColumn is one column compared on every matched id (Plan).
type ComparedColumn struct {
	// Name is the column, in both inputs.
	Name string
	// SourceType and SinkType are its DuckDB types in each input.
	SourceType, SinkType string
	// Method is how the two are compared (Comparison).
	Method Method
	// Normalize are the normalisations (spec.NormalizeTrim, …) a text
	// column is compared after.
	Normalize []string
	// Tolerance is the tolerance the column is compared within, nil when
	// none: its own of tolerance:, else tolerance:'s default when that can
	// apply to the column (ToleranceDefault is then true).
	Tolerance        *Tolerance
	ToleranceDefault bool
	// NoTolerance says why a column that tolerance:'s default does not fit
	// is compared exactly ("default tolerance 0.01 does not apply to
	// VARCHAR"); "" otherwise.
	NoTolerance string
}

// UncomparedColumn is a column of either input that is not compared, and
// why.
type UncomparedColumn struct {
	Name string
	// Input is "source", "sink" or "both".
	Input string
	// Reason says why: "id", "checkpoint", "logical key", "ignore:",
	// "not in compare:", "only in the source", "only in the sink".
	Reason string
}

// The reasons a column is left uncompared.
const (
	ReasonID         = "id: matched, not compared"
	ReasonCheckpoint = "checkpoint id"
	ReasonLogicalKey = "logical key"
	ReasonIgnored    = "ignore:"
	ReasonNotListed  = "not in compare:"
	ReasonOnlySource = "only in the source"
	ReasonOnlySink   = "only in the sink"
	// ReasonProvenance: a kind's own provenance column (a Kafka record's
	// partition, offset, timestamp, headers), which says where a record
	// was, not what it says.
	ReasonProvenance = "provenance"
)

// Plan is what a control compares, decided from the spec and the column
// types alone — no row is read — so that it can be checked before the inputs
// are loaded (a sources.Schemer's columns) and again on the loaded tables.
type Plan struct {
	// Compared are the columns compared on every matched id: compare: in
	// its order, else every column present in both inputs (in the
	// source's column order) but the id, checkpoint and logical-key
	// columns and those in ignore:.
	Compared []ComparedColumn
	// Uncompared are the other columns of either input: the source's in
	// its order, then the sink's own.
	Uncompared []UncomparedColumn
	// Keys are the id and group columns, each once, and how they are
	// matched across the inputs.
	Keys []KeyColumn
}

// KeyColumn is an id or group column and how its source and sink values
// are matched.
type KeyColumn struct {
	Name                 string
	SourceType, SinkType string
	Method               Method
	// AsText: a number against text, matched as text (see Comparison).
	AsText bool
	// Normalize are the column's normalize: (spec.NormalizeTrim, …):
	// Prepare rewrites it so normalised in both inputs, and every check
	// matches and groups by the normalised value. Only a key matched as
	// text (MethodText) has them.
	Normalize []string
}

// PlanComparison decides, from c and the columns of each input (name and
// DuckDB type, provenance columns excluded), which columns are compared and
// how, and which are left out and why. It checks every rule of
// compare:, ignore:, normalize:, tolerance: and balance_tolerance: that the
// types decide:
//
//   - a column of compare: is in both inputs; one of ignore: in either;
//   - the id and group columns, and every compared column, have types
//     Comparison accepts — a timestamp against an integer is refused here,
//     naming the column and both types;
//   - a measure is compared as a number, whatever it is stored as;
//   - normalize: names compared text columns, or id and group columns
//     matched as text (an integer id is refused: nothing to normalise);
//     tolerance: compared columns
//     of numbers (an amount or a percentage) or of timestamps and dates (a
//     duration); balance_tolerance: measures;
//   - tolerance: {default: X} applies X to every compared column it does
//     not name whose comparison takes a tolerance of X's kind (the rule of
//     a named one, toleranceFits); every other compared column is compared
//     exactly, never refused, with the reason in ComparedColumn.NoTolerance;
//     a column named default in both inputs makes default: ambiguous, and
//     is refused (spec.ToleranceDefault);
//   - without compare:, no column of one input only has a name that looks
//     like one of the other input only (case, white space around it,
//     invisible characters: lookAlikeErrors), which neither would compare.
//
// It reads no row, so the same call refuses a spec before any row is read
// (from sources.Schemer's columns) and after the load (Prepare). With no id
// nothing is compared: a windowed sink plans nothing, a balance control
// (Columns.Balance) only how its group columns are matched (Plan.Keys).
// Errors wrap ErrColumn (exit code 2), every problem at once; incomparable
// types wrap ErrIncomparable too.
func PlanComparison(c Columns, source, sink []sources.Column) (*Plan, error) {
	if len(c.ID) == 0 && !c.Balance {
		return &Plan{}, nil
	}
	pl := &planner{c: c, source: source, sink: sink, p: &Plan{}, srcType: map[string]string{}, sinkType: map[string]string{}}
	for _, col := range source {
		pl.srcType[col.Name] = col.Type
	}
	for _, col := range sink {
		pl.sinkType[col.Name] = col.Type
	}
	pl.planKeys()
	if len(c.ID) > 0 {
		excluded := pl.excluded()
		names := pl.comparedNames(excluded)
		pl.planUncompared(names, excluded)
		pl.planCompared(names)
		pl.checkNotCompared(names)
	}
	if len(pl.errs) > 0 {
		err := fmt.Errorf("%w: %s", ErrColumn, strings.Join(pl.errs, "; "))
		if pl.incomparable {
			err = fmt.Errorf("%w (%w)", err, ErrIncomparable)
		}
		return nil, err
	}
	return pl.p, nil
}

// planner is PlanComparison at work: the plan made so far and every
// problem found (errs; incomparable when one is of types Comparison
// refuses).
type planner struct {
	c                 Columns
	source, sink      []sources.Column
	srcType, sinkType map[string]string // column name → DuckDB type
	p                 *Plan
	errs              []string
	incomparable      bool
}

// planKeys decides how each id and group column in both inputs is matched
// (Plan.Keys): as text when a number meets text, else by Comparison; a
// binary floating-point type against another type is refused, and so is
// a normalize: of a key not matched as text.
func (pl *planner) planKeys() {
	c := pl.c
	seen := map[string]bool{}
	for _, col := range append(append([]string{}, c.ID...), c.GroupBy...) {
		st, sok := pl.srcType[col]
		kt, kok := pl.sinkType[col]
		if seen[col] || !sok || !kok {
			continue // a missing column is Prepare's error (need)
		}
		seen[col] = true
		k := KeyColumn{Name: col, SourceType: st, SinkType: kt, AsText: matchedAsText(st, kt)}
		if k.AsText {
			k.Method = MethodText
		} else {
			m, err := Comparison(st, kt)
			if err != nil {
				pl.errs = append(pl.errs, fmt.Sprintf("column %s (matched: an id or group column): %s", col, strings.TrimPrefix(err.Error(), ErrIncomparable.Error()+": ")))
				pl.incomparable = true
				continue
			}
			k.Method = m
			if m == MethodFloat && (familyOf(st) != familyOf(kt) || floatTypeOf(st, st) != floatTypeOf(kt, kt)) {
				pl.errs = append(pl.errs, fmt.Sprintf("column %s (matched: an id or group column): %s cannot be matched with %s: an id or group is matched by exact value, and a binary floating-point value cannot hold every number of the other type (the BIGINT 9007199254740993 is the DOUBLE 9007199254740992; the texts 1, 01 and 1e0 are all the DOUBLE 1): give the column one type in both inputs (types:), or cast it to an exact type in a query",
					col, describe(st, familyOf(st)), describe(kt, familyOf(kt))))
				pl.incomparable = true
				continue
			}
		}
		if ns, ok := c.Normalize[col]; ok {
			if k.Method != MethodText {
				typed := st // the side that is not text
				if familyOf(st) == famText {
					typed = kt
				}
				pl.errs = append(pl.errs, fmt.Sprintf("normalize.%s: the %s column is %s in the source and %s in the sink, matched as %s; only a text id or group is normalised (trim, strip_leading_zeros and casefold act on text: %s has no white space, leading zeros or case to remove)",
					col, keyKind(c, col), st, kt, k.Method, describe(typed, familyOf(typed))))
				continue
			}
			k.Normalize = ns
		}
		pl.p.Keys = append(pl.p.Keys, k)
	}
}

// keyKind says what key column col is: "id" or "group_by".
func keyKind(c Columns, col string) string {
	if slices.Contains(c.ID, col) {
		return "id"
	}
	return "group_by"
}

// isKey reports whether col is an id or group column of c.
func isKey(c Columns, col string) bool {
	return slices.Contains(c.ID, col) || slices.Contains(c.GroupBy, col)
}

// excluded are the columns never compared, with why: the id, the logical
// key, the checkpoint, the provenance columns and those of ignore: (one
// in neither input is an error).
func (pl *planner) excluded() map[string]string {
	c := pl.c
	excluded := map[string]string{}
	for _, id := range c.ID {
		excluded[id] = ReasonID
	}
	for _, lk := range c.LogicalKey {
		if _, ok := excluded[lk]; !ok {
			excluded[lk] = ReasonLogicalKey
		}
	}
	if c.Checkpoint != "" {
		if _, ok := excluded[c.Checkpoint]; !ok {
			excluded[c.Checkpoint] = ReasonCheckpoint
		}
	}
	for _, cols := range [][]string{c.SourceProvenance, c.SinkProvenance} {
		for _, col := range cols {
			if _, ok := excluded[col]; !ok {
				excluded[col] = ReasonProvenance
			}
		}
	}
	for _, col := range c.Ignore {
		if _, ok := pl.srcType[col]; !ok {
			if _, ok := pl.sinkType[col]; !ok {
				pl.errs = append(pl.errs, fmt.Sprintf("ignore: column %q is in neither input%s", col, suggestName(col, pl.source, pl.sink)))
				continue
			}
		}
		if _, ok := excluded[col]; !ok {
			excluded[col] = ReasonIgnored
		}
	}
	return excluded
}

// comparedNames are the columns compared: those of compare: (each must be
// in both inputs), else every column in both that is not excluded, in the
// source's order.
func (pl *planner) comparedNames(excluded map[string]string) []string {
	var names []string
	if len(pl.c.Compare) == 0 {
		for _, col := range pl.source {
			if _, ok := pl.sinkType[col.Name]; ok && excluded[col.Name] == "" {
				names = append(names, col.Name)
			}
		}
		return names
	}
	for _, col := range pl.c.Compare {
		_, sok := pl.srcType[col]
		_, kok := pl.sinkType[col]
		switch {
		case !sok && !kok:
			pl.errs = append(pl.errs, fmt.Sprintf("compare: column %q is in neither input%s", col, suggestName(col, pl.source, pl.sink)))
		case !sok:
			pl.errs = append(pl.errs, fmt.Sprintf("compare: column %q is only in the sink; a compared column must be in both inputs", col))
		case !kok:
			pl.errs = append(pl.errs, fmt.Sprintf("compare: column %q is only in the source; a compared column must be in both inputs", col))
		default:
			names = append(names, col)
		}
	}
	return names
}

// planUncompared lists every column of either input that is not in names,
// with the input(s) it is in and why it is left out (Plan.Uncompared):
// source columns in order, then those only the sink has.
func (pl *planner) planUncompared(names []string, excluded map[string]string) {
	for _, col := range pl.source {
		reason := ""
		_, inSink := pl.sinkType[col.Name]
		switch {
		case slices.Contains(names, col.Name):
			continue
		case excluded[col.Name] != "":
			reason = excluded[col.Name]
		case !inSink:
			reason = ReasonOnlySource
		default:
			reason = ReasonNotListed
		}
		input := "source"
		if inSink {
			input = "both"
		}
		pl.p.Uncompared = append(pl.p.Uncompared, UncomparedColumn{Name: col.Name, Input: input, Reason: reason})
	}
	for _, col := range pl.sink {
		if _, inSource := pl.srcType[col.Name]; inSource {
			continue
		}
		reason := excluded[col.Name]
		if reason == "" {
			reason = ReasonOnlySink
		}
		pl.p.Uncompared = append(pl.p.Uncompared, UncomparedColumn{Name: col.Name, Input: "sink", Reason: reason})
	}
}

// planCompared decides how each column of names is compared
// (Plan.Compared): by Comparison of its two types, a measure always as a
// number; its normalize: only on text, its tolerance: only where
// toleranceFits.
func (pl *planner) planCompared(names []string) {
	c := pl.c
	for _, col := range names {
		cc := ComparedColumn{Name: col, SourceType: pl.srcType[col], SinkType: pl.sinkType[col]}
		m, err := Comparison(cc.SourceType, cc.SinkType)
		if slices.Contains(c.Measures, col) && err == nil && m == MethodText {
			m = MethodNumber // a measure is an exact decimal whatever it is stored as
		}
		if err != nil {
			pl.errs = append(pl.errs, fmt.Sprintf("column %s: %s", col, strings.TrimPrefix(err.Error(), ErrIncomparable.Error()+": ")))
			pl.incomparable = true
			continue
		}
		cc.Method = m
		if ns, ok := c.Normalize[col]; ok {
			// A group column compared is normalised as a key (planKeys
			// checks its type, matched as text when a number meets text).
			if m != MethodText && !isKey(c, col) {
				pl.errs = append(pl.errs, fmt.Sprintf("normalize.%s: the column is compared as %s (%s in the source, %s in the sink); only text is normalised", col, m, cc.SourceType, cc.SinkType))
			}
			cc.Normalize = ns
		}
		named, def := spec.TolerancesOf(c.Tolerance)
		if t, ok := named[col]; ok {
			if msg := toleranceFits(col, t, m); msg != "" {
				pl.errs = append(pl.errs, fmt.Sprintf("tolerance.%s: %s", col, msg))
			}
			tt := t
			cc.Tolerance = &tt
		} else if def != nil {
			if toleranceFits(col, *def, m) == "" {
				d := *def
				cc.Tolerance, cc.ToleranceDefault = &d, true
			} else {
				cc.NoTolerance = fmt.Sprintf("default tolerance %s does not apply to %s", def.Text, typesText(cc.SourceType, cc.SinkType))
			}
		}
		pl.p.Compared = append(pl.p.Compared, cc)
	}
}

// checkNotCompared refuses a normalize: or tolerance: of a column that is
// not compared, and a balance_tolerance: of a column that is not a measure
// or that is a duration.
func (pl *planner) checkNotCompared(names []string) {
	c := pl.c
	for _, col := range slices.Sorted(maps.Keys(c.Normalize)) {
		if !slices.Contains(names, col) && !isKey(c, col) {
			pl.errs = append(pl.errs, fmt.Sprintf("normalize.%s: the column is not compared%s", col, notComparedWhy(col, pl.p.Uncompared)))
		}
	}
	for _, col := range slices.Sorted(maps.Keys(c.Tolerance)) {
		if col == spec.ToleranceDefault {
			_, src := pl.srcType[col]
			_, snk := pl.sinkType[col]
			if src && snk {
				pl.errs = append(pl.errs, spec.AmbiguousDefault())
			}
			continue
		}
		if !slices.Contains(names, col) {
			pl.errs = append(pl.errs, fmt.Sprintf("tolerance.%s: the column is not compared%s", col, notComparedWhy(col, pl.p.Uncompared)))
		}
	}
	if len(c.Compare) == 0 {
		pl.errs = append(pl.errs, lookAlikeErrors(pl.p.Uncompared, pl.source, pl.sink)...)
	}
	for _, m := range slices.Sorted(maps.Keys(c.BalanceTolerance)) {
		if m == spec.ToleranceDefault && !slices.Contains(c.Measures, m) {
			continue // every measure not named (balanceTolerances); a duration is refused by the spec
		}
		if !slices.Contains(c.Measures, m) {
			pl.errs = append(pl.errs, fmt.Sprintf("balance_tolerance.%s: not a measure", m))
		} else if t := c.BalanceTolerance[m]; t.Kind == ToleranceDuration {
			pl.errs = append(pl.errs, fmt.Sprintf("balance_tolerance.%s: a sum takes an amount or a percentage, not the duration %s", m, t.Text))
		}
	}
}

// toleranceFits says why tolerance t cannot apply to column col compared
// by method m ("" when it can). For a text column the advice is the type
// to declare for the tolerance's kind: a timestamp type for a duration, a
// DECIMAL for an amount or a share.
func toleranceFits(col string, t Tolerance, m Method) string {
	switch {
	case m == MethodNumber && t.Kind != ToleranceDuration:
		return ""
	case (m == MethodTimestamp || m == MethodDate) && t.Kind == ToleranceDuration:
		return ""
	case m == MethodNumber:
		return fmt.Sprintf("%s is a duration, but the column holds numbers: give an amount (0.01) or a percentage (\"0.1%%\")", t.Text)
	case m == MethodTimestamp || m == MethodDate:
		return fmt.Sprintf("%s is not a duration, but the column holds %ss: give a duration such as 2s", t.Text, m)
	case m == MethodFloat:
		return "the column is compared as binary floating point, whose difference is not exact; declare it DECIMAL with types: to compare it within a tolerance"
	}
	if m == MethodText && t.Kind == ToleranceDuration {
		return fmt.Sprintf("the column is text in both inputs, compared byte for byte; to compare it as an instant within %s, declare its type (types: {%s: TIMESTAMPTZ}, or TIMESTAMP for a zone-less timestamp read in the input's time_zone)", t.Text, col)
	}
	if m == MethodText {
		return fmt.Sprintf("the column is text in both inputs, compared byte for byte; to compare it as a number, make it a measure (measures:) or declare its type (types: {%s: DECIMAL(18,2)})", col)
	}
	return fmt.Sprintf("the column is compared as %s, which has no tolerance (numbers and timestamps do)", m)
}

// typesText names the type of a compared column for a sentence: its type
// when both inputs have it ("VARCHAR"), else both ("VARCHAR in the source
// and TIME in the sink").
func typesText(sourceType, sinkType string) string {
	if strings.EqualFold(strings.TrimSpace(sourceType), strings.TrimSpace(sinkType)) {
		return sourceType
	}
	return sourceType + " in the source and " + sinkType + " in the sink"
}

func notComparedWhy(col string, un []UncomparedColumn) string {
	for _, u := range un {
		if u.Name == col {
			return " (" + u.Reason + ")"
		}
	}
	return " (in neither input)"
}

func suggestName(col string, source, sink []sources.Column) string {
	for _, cols := range [][]sources.Column{source, sink} {
		for _, c := range cols {
			if strings.EqualFold(strings.TrimSpace(c.Name), strings.TrimSpace(col)) {
				return fmt.Sprintf(" (did you mean %q? names are compared exactly)", c.Name)
			}
		}
	}
	return ""
}

// decimalDigits returns the scale and integer digits of a DECIMAL(p,s) type
// name, and whether it is one.
func decimalDigits(typ string) (scale, intDigits int, ok bool) {
	mm := decimalTypeName.FindStringSubmatch(strings.ReplaceAll(typ, " ", ""))
	if mm == nil {
		return 0, 0, false
	}
	p, _ := strconv.Atoi(mm[1])
	s, _ := strconv.Atoi(mm[2])
	return s, p - s, true
}
