package load

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// Options say how a loaded input's columns are named and read beyond what
// its source declares.
type Options struct {
	// Rename maps a column's name in the input to the control's name for it
	// (the spec's rename:); declared types and every check use the
	// control's names. Nil for none.
	Rename map[string]string
	// Measures are the control's measure columns: a declared
	// decimal_separator: or thousands: (sources.ValueFormats) applies to
	// those loaded as text too, besides the columns declared a number type.
	Measures []string
	// TimeZone is the IANA zone the input's zone-less timestamps are read
	// in (its time_zone:, else the spec's; "" is UTC): a column declared
	// TIMESTAMP WITH TIME ZONE (types:) whose text or TIMESTAMP values
	// carry no zone is read as wall-clock time in it.
	TimeZone string
	// Columns, when not nil, are the only columns of the input (by their
	// names in the input) the run needs: a Parquet input read by DuckDB
	// reads those, its partition columns and the columns it declares a
	// type for, and lists the others in Input.NotRead, with a note. Every
	// other read (CSV, a database, Kafka, a Go reader), and any input with
	// Rename, reads every column.
	Columns []string
	// View asks for the input to be read where it lies: a Parquet input of
	// one schema read by DuckDB, without Rename, value formats or declared
	// types, becomes a view over its files (read_parquet_table.sql, the same
	// columns and provenance) instead of a table, so each statement that
	// reads it reads the files (a re-performance reads the events once, to
	// aggregate them). Input.ReadInPlace says when it did; any other input
	// is loaded as a table. The caller must check the files unchanged once
	// the last statement has read them (sources.File.Unchanged).
	View bool
}

// renameColumns renames the columns of table as rename says, in the order
// of the input's names. A name the input lacks, or a new name the input
// already has, is a spec.ErrInvalid naming it (a spec error, exit 2):
// kinds that tell their columns before any row is read (sources.Schemer)
// have it refused before the load already (internal/control).
//
// With partial (an uncommitted file, read only to label findings, whose own
// header may lack a column), a renamed column the table lacks is passed
// over.
func renameColumns(ctx context.Context, db *duck.DB, table, role string, rename map[string]string, partial bool) (map[string]string, error) {
	if len(rename) == 0 {
		return nil, nil
	}
	cols, err := UserColumns(ctx, db, table)
	if err != nil {
		return nil, err
	}
	check := rename
	if partial {
		check = map[string]string{}
		for _, c := range cols {
			if to, ok := rename[c.Name]; ok {
				check[c.Name] = to
			}
		}
	}
	if err := CheckRename(role, columnNames(cols), check); err != nil {
		return nil, err
	}
	from := map[string]string{}
	for _, c := range cols {
		to, ok := rename[c.Name]
		if !ok {
			continue
		}
		if err := db.ExecFile(ctx, statements(), queries.LoadRenameColumn, struct{ Table, From, To string }{table, c.Name, to}); err != nil {
			return nil, err
		}
		from[to] = c.Name
	}
	return from, nil
}

func columnNames(cols []duck.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// CheckRename checks rename (the input's name → the control's) against
// the columns cols of input role ("source", "sink"), in their order: every
// renamed column exists, and no new name is a column the input already has
// (compared ignoring case, as DuckDB compares names). Errors wrap
// spec.ErrInvalid (exit 2), every problem at once, in the order of
// rename's sorted names.
func CheckRename(role string, cols []string, rename map[string]string) error {
	have := map[string]string{}
	for _, c := range cols {
		have[strings.ToLower(c)] = c
	}
	var errs []string
	for _, f := range slices.Sorted(maps.Keys(rename)) {
		to := rename[f]
		if _, ok := have[strings.ToLower(f)]; !ok || !slices.Contains(cols, f) {
			hint := ""
			if c, ok := have[strings.ToLower(f)]; ok {
				hint = fmt.Sprintf(" (did you mean %q? names are compared exactly)", c)
			}
			errs = append(errs, fmt.Sprintf("%s.rename: column %q is not in the %s, whose columns are: %s%s", role, f, role, strings.Join(cols, ", "), hint))
			continue
		}
		if c, ok := have[strings.ToLower(to)]; ok {
			errs = append(errs, fmt.Sprintf("%s.rename: %s to %s: the %s already has a column %s; rename onto a name it does not have", role, f, to, role, c))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", spec.ErrInvalid, strings.Join(errs, "; "))
}

// typeClass is what a declared type is for the value formats: "date",
// "timestamp", "number" or "".
func typeClass(t string) string {
	u := strings.ToUpper(strings.TrimSpace(t))
	switch {
	case u == "DATE":
		return "date"
	case strings.HasPrefix(u, "TIMESTAMP"):
		return "timestamp"
	case decimalType.MatchString(u), ducktype.IsIntegerName(u), slices.Contains([]string{"DECIMAL", "NUMERIC", "DOUBLE", "FLOAT", "REAL"}, u):
		return "number"
	}
	return ""
}

// numberRegex is the form a number takes under the declared separators:
// spaces around it, an optional sign, digits grouped by three between
// thousands separators (or not grouped), an optional decimal separator and
// digits.
func numberRegex(f sources.ValueFormats) string {
	d := regexp.QuoteMeta(decimalOr(f.DecimalSeparator))
	digits := `\d+`
	if f.Thousands != "" {
		digits = `(\d{1,3}(` + regexp.QuoteMeta(f.Thousands) + `\d{3})+|\d+)`
	}
	return `\s*[+-]?` + digits + `(` + d + `\d+)?\s*`
}

func decimalOr(d string) string {
	if d == "" {
		return "."
	}
	return d
}

// applyFormats reads the text columns the input's value formats concern
// (in.Formats: dates and timestamps declared in types:, numbers declared
// in types: and the measures) with them, after checking every value: a
// value that does not match is an error naming file, line, column, value
// and the format; a pattern reading a zone or offset (%z, %Z) for a column
// declared DATE or a zone-less TIMESTAMP is a spec.ErrInvalid naming role
// (zonePattern). A date or timestamp column becomes its declared type; a
// number stays text, rewritten as a plain decimal for applyDeclared and
// the checks to convert exactly.
func applyFormats(ctx context.Context, db *duck.DB, table, role string, f sources.ValueFormats, declared []sources.Column, measures []string, refuse refusal) error {
	if f.IsZero() {
		return nil
	}
	cols, err := UserColumns(ctx, db, table)
	if err != nil {
		return err
	}
	text := map[string]bool{}
	for _, c := range cols {
		text[c.Name] = c.Type == "VARCHAR"
	}
	numbers := []string{}
	for _, d := range declared {
		if !text[d.Name] {
			continue
		}
		switch typeClass(d.Type) {
		case "date", "timestamp":
			key, pattern := "dateformat", f.DateFormat
			if typeClass(d.Type) == "timestamp" {
				key, pattern = "timestampformat", f.TimestampFormat
			}
			if pattern == "" {
				continue
			}
			if err := zonePattern(role, d, f); err != nil {
				return err
			}
			if err := refuse.format(ctx, db, table, d.Name, pattern, "", func(msg string) error {
				return fmt.Errorf("%s does not match %s: %q (declared %s)", msg, key, pattern, d.Type)
			}); err != nil {
				return err
			}
			// A TIMESTAMP WITH TIME ZONE whose pattern reads no offset or zone
			// (%z, %Z) is wall-clock time: read as a zone-less TIMESTAMP here,
			// applyDeclared then places it in the input's time zone.
			typ := d.Type
			if zonedType.MatchString(typ) && !strings.Contains(pattern, "%z") && !strings.Contains(pattern, "%Z") {
				typ = "TIMESTAMP"
			}
			if err := db.ExecFile(ctx, statements(), queries.LoadFormatTime, struct{ Table, Column, Type, Pattern string }{table, d.Name, typ, pattern}); err != nil {
				return err
			}
		case "number":
			numbers = append(numbers, d.Name)
		}
	}
	for _, m := range measures {
		if text[m] && !slices.Contains(numbers, m) {
			numbers = append(numbers, m)
		}
	}
	if !f.Numbers() {
		return nil
	}
	re := numberRegex(f)
	for _, c := range numbers {
		if err := refuse.format(ctx, db, table, c, "", re, func(msg string) error {
			return fmt.Errorf("%s is not a number as decimal_separator: %q and thousands: %q write one (such as %s)", msg, decimalOr(f.DecimalSeparator), f.Thousands, example(f))
		}); err != nil {
			return err
		}
		if err := db.ExecFile(ctx, statements(), queries.LoadFormatNumber, struct{ Table, Column, Thousands, Decimal string }{table, c, f.Thousands, decimalOr(f.DecimalSeparator)}); err != nil {
			return err
		}
	}
	return nil
}

// example is -1234.50 written with f's separators.
func example(f sources.ValueFormats) string {
	return "-1" + f.Thousands + "234" + decimalOr(f.DecimalSeparator) + "50"
}

// format applies r to the values of column that do not match a strftime
// pattern or a regex (format_check), fail(msg) giving each one's error.
func (r refusal) format(ctx context.Context, db *duck.DB, table, column, pattern, regex string, fail func(string) error) error {
	return r.refuse(ctx, db, table, column, "check the format of "+column, func(limit int) (string, error) {
		return statements().SQL(queries.LoadFormatCheck, struct {
			Table, Column, Pattern, Regex string
			Limit                         int
		}{table, column, pattern, regex, limit})
	}, func(row badRow) error { return fail(row.msg) })
}

// formatHint is what a declared type's error adds when value, a value of a
// text column (nil for NULL), did not convert: the option that would read
// it (nothing is guessed: 01/02/2024 is 2 January or 1 February), or, for a
// value already in the type's plain form, why it is not one: no such day,
// or more digits than the DECIMAL holds.
func formatHint(t string, f sources.ValueFormats, v *string) string {
	value, ok := "", v != nil
	if ok {
		value = *v
	}
	switch typeClass(t) {
	case "date":
		if ok && isoDate.MatchString(value) {
			return "; it is written as YYYY-MM-DD but is no calendar day (a month 1-12, a day that month has)"
		}
		if f.DateFormat == "" {
			return `; a date not written as YYYY-MM-DD is read only with its declared format: dateformat: "%m/%d/%Y" (01/02/2024 is 2 January) or "%d/%m/%Y" (1 February), or another strftime pattern`
		}
	case "timestamp":
		if ok && isoTimestamp.MatchString(value) {
			return "; it is written as an ISO 8601 timestamp but is no real time (a month 1-12, a day the month has, hours 0-23, minutes and seconds 0-59)"
		}
		if f.TimestampFormat == "" {
			return `; a timestamp not written as ISO 8601 is read only with its declared format: timestampformat: such as "%m/%d/%Y %H:%M:%S" or "%d.%m.%Y %H:%M"`
		}
	case "number":
		if ok && !f.Numbers() && strings.Contains(value, ",") {
			return CommaHint(value, "")
		}
		if ok && !f.Numbers() {
			return decimalCapacity(t, value)
		}
	}
	return ""
}

// CommaHint is the hint for value, a number written with a comma that did
// not read as a number where no number format is declared
// (sources.ValueFormats.Numbers is false). Nothing is guessed: it names
// the option that reads the value as written. Digits grouped by three
// between commas and then a decimal point (1,000.00), or more than one
// such comma (1,234,567), are a thousands separator: thousands: ",". One
// comma before three digits and nothing else (1,000) is a thousands
// separator or a decimal comma, so both readings are named. Any other
// comma (12,50, 1.234,50) is a decimal comma: decimal_separator: ",".
// where says where the option goes (" on the input", or "").
func CommaHint(value, where string) string {
	v := strings.TrimLeft(strings.TrimSpace(value), "+-")
	switch {
	case commaGroups.MatchString(v) && strings.Count(v, ",") == 1 && !strings.Contains(v, "."):
		return fmt.Sprintf(`; %q is read only with its number format declared, and nothing is guessed: thousands: ","%s if it is %s, decimal_separator: ","%s if it is %s`,
			value, where, strings.ReplaceAll(v, ",", ""), where, strings.ReplaceAll(v, ",", "."))
	case commaGroups.MatchString(v):
		return fmt.Sprintf(`; its commas group thousands, which is read only when declared: thousands: ","%s (the decimal separator stays ".")`, where)
	}
	return fmt.Sprintf(`; a decimal comma is read only when declared: decimal_separator: ","%s (and thousands: "." if 1.234,50 is grouped)`, where)
}

// commaGroups is a number (sign trimmed) whose integer digits are grouped
// by three between commas, with an optional decimal point and fraction.
var commaGroups = regexp.MustCompile(`^\d{1,3}(,\d{3})+(\.\d+)?$`)

// isoDate is a date in the form DuckDB reads without a format: YYYY-MM-DD.
var isoDate = regexp.MustCompile(`^\s*\d{4}-\d{2}-\d{2}\s*$`)

// isoTimestamp is the layout of an ISO 8601 timestamp DuckDB reads without a
// format: a date, T or a space, hh:mm[:ss[.fraction]], an optional zone.
var isoTimestamp = regexp.MustCompile(`^\s*\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?\s*$`)

// plainDecimal is a number written plainly: a sign, integer digits, a
// point and fraction digits (no exponent, no grouping).
var plainDecimal = regexp.MustCompile(`^\s*[+-]?(\d*)(?:\.(\d*))?\s*$`)

// decimalCapacity says why a plain number does not fit DECIMAL(p,s) t:
// more integer digits than the p-s it holds before the point, or more
// fraction digits (trailing zeros too: the exactness check counts them)
// than its s, with the narrowest DECIMAL
// that holds both the type's and the value's digits; "" when t is not
// DECIMAL(p,s), the value is not plain, or it fits (its error is another).
func decimalCapacity(t, value string) string {
	m := decimalType.FindStringSubmatch(t)
	v := plainDecimal.FindStringSubmatch(value)
	if m == nil || v == nil || v[1]+v[2] == "" {
		return ""
	}
	p, _ := strconv.Atoi(m[2])
	sc := 0
	if m[3] != "" {
		sc, _ = strconv.Atoi(m[3])
	}
	whole, frac := len(strings.TrimLeft(v[1], "0")), len(v[2])
	var why []string
	if whole > p-sc {
		why = append(why, fmt.Sprintf("%d digit(s) before the point, the value has %d", p-sc, whole))
	}
	if frac > sc {
		why = append(why, fmt.Sprintf("%d digit(s) after the point, the value has %d", sc, frac))
	}
	if why == nil {
		return ""
	}
	needScale := max(sc, frac)
	need := max(p-sc, whole) + needScale
	advice := fmt.Sprintf("declare DECIMAL(%d,%d) or wider", need, needScale)
	if need > 38 {
		advice = "no DECIMAL holds it (38 digits at most): declare VARCHAR to compare it as text"
	}
	return fmt.Sprintf("; DECIMAL(%d,%d) holds %s: %s", p, sc, strings.Join(why, "; "), advice)
}
