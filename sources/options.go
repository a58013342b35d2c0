package sources

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Options reads the kind-specific options of a Location (its Options map,
// the spec's long form) as a kind's Opener asks for them, and reports, in
// Err, every option that is malformed or that the kind never asked for
// (ErrInvalidLocation listing the options it takes). A kind reads each
// option once, with the getter of its type, then calls Err.
type Options struct {
	kind string
	m    map[string]any
	used map[string]bool
	errs []error
}

// NewOptions reads m, the options of a location of kind (named in the
// unknown-option error). The option "kind" is always known.
func NewOptions(kind string, m map[string]any) *Options {
	return &Options{kind: kind, m: m, used: map[string]bool{"kind": true}}
}

// Get returns option key as given — a YAML value, or an OptionText turned
// into the value the spec would give — and whether it is set (a null is
// not), and marks it as read.
func (o *Options) Get(key string) (any, bool) {
	o.used[key] = true
	v, ok := o.m[key]
	if t, isText := v.(OptionText); isText {
		return optionFromText(key, string(t)), true
	}
	return v, ok && v != nil
}

// OptionText is an option's value given as text on the command line
// (reconcile run --sink-option key=value) rather than as a YAML value: each
// kind reads it as the option's own type, as the spec would give it —
// true/false for header, partitions and tls; a comma-separated list for
// columns and partitions (columns=id,amount); column:TYPE pairs for types
// (types=amount:DECIMAL(18,2),day:DATE); text for every other option.
type OptionText string

// optionFromText turns the text of an OptionText into the YAML-shaped value
// option key takes.
func optionFromText(key, v string) any {
	switch key {
	case "header", "tls":
		switch strings.ToLower(v) {
		case "true":
			return true
		case "false":
			return false
		}
	case "partitions":
		switch strings.ToLower(v) {
		case "true":
			return true
		case "false":
			return false
		}
		return textList(v)
	case "columns":
		return textList(v)
	case "types":
		m := map[string]any{}
		for _, p := range splitOutsideParens(v) {
			col, typ, ok := strings.Cut(p, ":")
			if !ok {
				return v // refused by Types as not a mapping
			}
			m[strings.TrimSpace(col)] = strings.TrimSpace(typ)
		}
		return m
	}
	return v
}

// textList splits a comma-separated list, trimming each part.
func textList(v string) []any {
	var out []any
	for _, p := range strings.Split(v, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

// splitOutsideParens splits v at the commas outside parentheses (the comma
// of DECIMAL(18,2) stays).
func splitOutsideParens(v string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range v {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, v[start:i])
				start = i + 1
			}
		}
	}
	return append(out, v[start:])
}

// Use marks option key as read by the kind, which reads its value from the
// Location itself (a null the kind tells apart from a missing option).
func (o *Options) Use(key string) { o.used[key] = true }

// Fail records err, an option's value the kind refuses ("option key: …"),
// for Err to report.
func (o *Options) Fail(err error) { o.errs = append(o.errs, err) }

// String reads a text option (def when it is absent); another value is an
// error for Err.
func (o *Options) String(key, def string) string {
	v, ok := o.Get(key)
	if !ok {
		return def
	}
	s, isStr := v.(string)
	if !isStr {
		o.errs = append(o.errs, fmt.Errorf("option %s: want a string, got %v", key, v))
	}
	return s
}

// Bool reads a true/false option (def when it is absent); another value is
// an error for Err.
func (o *Options) Bool(key string, def bool) bool {
	v, ok := o.Get(key)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		o.errs = append(o.errs, fmt.Errorf("option %s: want true or false, got %v", key, v))
	}
	return b
}

// Strings reads an option that is a list of text values (nil when absent).
func (o *Options) Strings(key string) []string {
	v, ok := o.Get(key)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		o.errs = append(o.errs, fmt.Errorf("option %s: want a list such as [a, b], got %v", key, v))
		return nil
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, isStr := x.(string)
		if !isStr {
			o.errs = append(o.errs, fmt.Errorf("option %s: %v is not text", key, x))
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		o.errs = append(o.errs, fmt.Errorf("option %s: an empty list", key))
	}
	return out
}

// CaseClash refuses two column names of one input that are equal or differ
// only in case (ErrInvalidLocation naming both, each quoted with %q so a
// control character or a byte-order mark shows): DuckDB, which runs the
// checks, compares identifiers case-insensitively and would load the second
// as "<name>_1", so a spec column would silently bind to the wrong one
// (README "Column names are compared exactly"). Every kind's columns pass
// here: RecordSchema (every Arrow kind's records), the PostgreSQL and MySQL
// Schema, and the CSV header (checkNames).
func CaseClash(names []string) error {
	seen := make(map[string]string, len(names))
	for _, c := range names {
		k := strings.ToLower(c)
		switch first, dup := seen[k]; {
		case !dup:
			seen[k] = c
		case first == c:
			return fmt.Errorf("%w: column %q is named twice", ErrInvalidLocation, c)
		default:
			return fmt.Errorf("%w: columns %q and %q differ only in case; DuckDB, which runs the checks, does not tell them apart", ErrInvalidLocation, first, c)
		}
	}
	return nil
}

// Types reads the `types:` option: a mapping of column name to a SQL type
// name (VARCHAR, BIGINT, DECIMAL(18,2), …), returned sorted by column name
// (Input.Declared).
func (o *Options) Types() []Column {
	v, ok := o.Get("types")
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		o.errs = append(o.errs, fmt.Errorf("option types: want a mapping of column: TYPE, got %v", v))
		return nil
	}
	var out []Column
	for _, col := range slices.Sorted(maps.Keys(m)) {
		s, isStr := m[col].(string)
		if !isStr || !typeName.MatchString(s) {
			o.errs = append(o.errs, fmt.Errorf("option types: column %s: %v is not a type name such as VARCHAR, BIGINT or DECIMAL(18,2)", col, m[col]))
			continue
		}
		out = append(out, Column{Name: col, Type: s})
	}
	return out
}

// typeName is the form of a type name the types: option accepts: a word
// (or words) with an optional (precision[, scale]).
var typeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ]*(\(\s*\d+\s*(,\s*\d+\s*)?\))?$`)

// InputKeys are the keys of an input's long form that every kind takes and
// the spec reads itself (spec.Input: rename, time_zone), so the kind's
// options never see them; the unknown-option error lists them too.
var InputKeys = []string{"rename", "time_zone"}

// BadRecords reads option bad_records: "fail" (the default: a record that
// cannot be read stops the run) or "report" (true: it is listed as a bad
// record, counts as not read, and the run goes on).
func (o *Options) BadRecords() bool {
	switch br := o.String("bad_records", "fail"); br {
	case "fail":
		return false
	case "report":
		return true
	default:
		o.Fail(fmt.Errorf("option bad_records: %q: want fail or report", br))
		return false
	}
}

// Err reports options that are malformed or not known to the kind (listing
// the kind's options and InputKeys).
func (o *Options) Err() error {
	var unknown, known []string
	for k := range o.m {
		if !o.used[k] {
			unknown = append(unknown, k)
		}
	}
	for k := range o.used {
		known = append(known, k)
	}
	// Every input's long form also takes the spec's own keys (spec.Input:
	// rename, time_zone), which never reach the kind.
	for _, k := range InputKeys {
		if !o.used[k] {
			known = append(known, k)
		}
	}
	sort.Strings(unknown)
	sort.Strings(known)
	errs := o.errs
	if len(unknown) > 0 {
		errs = append(errs, fmt.Errorf("unknown option(s) %s for kind %s (it takes: uri, %s)", strings.Join(unknown, ", "), o.kind, strings.Join(known, ", ")))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidLocation, errors.Join(errs...))
}

// ValueFormats are how a text input writes dates, timestamps and numbers:
// the dateformat:, timestampformat:, decimal_separator: and thousands:
// options, named as DuckDB's read_csv names them. The loader (package
// load) applies them, each value checked, to the columns they concern; the
// zero value is the default (ISO 8601 dates and timestamps, a decimal
// point and no thousands separator), under which nothing is guessed.
type ValueFormats struct {
	// DateFormat and TimestampFormat are strftime patterns (DuckDB's
	// strptime: %Y, %m, %d, %H, %M, %S, %f, %z, …) for the columns the
	// types: option declares DATE, and TIMESTAMP or TIMESTAMP WITH TIME
	// ZONE; a value that does not match is an error naming file, line,
	// column, value and pattern.
	DateFormat, TimestampFormat string
	// DecimalSeparator ("." or ",") and Thousands ("" for none, or one of
	// "." "," " " "'" "_", not the decimal separator) apply to the columns
	// types: declares a number type and to the control's measures: each
	// value must be an optional sign, digits grouped by three between
	// thousands separators (or not grouped), and an optional decimal
	// separator with digits, else it is an error naming file, line,
	// column and value; it is then rewritten as a plain decimal (1.234,50
	// is 1234.50), text to text, never through a binary float.
	DecimalSeparator, Thousands string
}

// IsZero says no format is declared.
func (f ValueFormats) IsZero() bool { return f == ValueFormats{} }

// Numbers says a numeric format other than the default is declared.
func (f ValueFormats) Numbers() bool {
	return (f.DecimalSeparator != "" && f.DecimalSeparator != ".") || f.Thousands != ""
}

// ValueFormats reads the dateformat:, timestampformat:, decimal_separator:
// and thousands: options.
func (o *Options) ValueFormats() ValueFormats {
	f := ValueFormats{
		DateFormat:       o.String("dateformat", ""),
		TimestampFormat:  o.String("timestampformat", ""),
		DecimalSeparator: o.String("decimal_separator", ""),
		Thousands:        o.String("thousands", ""),
	}
	for _, p := range []struct{ key, v string }{{"dateformat", f.DateFormat}, {"timestampformat", f.TimestampFormat}} {
		if _, given := o.m[p.key]; given && !strings.Contains(p.v, "%") {
			o.errs = append(o.errs, fmt.Errorf("option %s: %q is not a strftime pattern (such as \"%%m/%%d/%%Y\" or \"%%d.%%m.%%Y %%H:%%M:%%S\")", p.key, p.v))
		}
	}
	if d := f.DecimalSeparator; d != "" && d != "." && d != "," {
		o.errs = append(o.errs, fmt.Errorf("option decimal_separator: %q: want \".\" or \",\"", d))
	}
	switch t := f.Thousands; {
	case t != "" && !strings.Contains(`.,' _`, t), len(t) > 1:
		o.errs = append(o.errs, fmt.Errorf("option thousands: %q: want one of \".\", \",\", \" \", \"'\", \"_\"", t))
	case t != "" && t == decimalOr(f.DecimalSeparator):
		o.errs = append(o.errs, fmt.Errorf("option thousands: %q is also the decimal separator; with a decimal comma write decimal_separator: \",\" and thousands: \".\"", t))
	}
	return f
}

// decimalOr is the decimal separator d, "." by default.
func decimalOr(d string) string {
	if d == "" {
		return "."
	}
	return d
}

// DeclaredFormats reads the dateformat:, timestampformat:,
// decimal_separator: and thousands: options of a location's options as a
// kind reads them (ValueFormats). It does no I/O; a malformed option is an
// ErrInvalidLocation.
func DeclaredFormats(opts map[string]any) (ValueFormats, error) {
	o := NewOptions("", opts)
	f := o.ValueFormats()
	if len(o.errs) > 0 {
		return ValueFormats{}, fmt.Errorf("%w: %w", ErrInvalidLocation, errors.Join(o.errs...))
	}
	return f, nil
}

// DeclaredTypes reads the types: option of a location's options (the
// mapping of the spec's long form) as a kind reads it: sorted by column,
// the control's names (after rename:). It does no I/O; a malformed option
// is an ErrInvalidLocation.
func DeclaredTypes(opts map[string]any) ([]Column, error) {
	o := NewOptions("", opts)
	types := o.Types()
	if len(o.errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidLocation, errors.Join(o.errs...))
	}
	return types, nil
}
