package load

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/duck/ducktype"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// declared is what declared_type_check and set_type render: column Column
// of Table converted to Type, Value with CAST and TryValue with TRY_CAST
// (the declared_value fragment); what declared_type_check tests (Check) and
// what it needs for that: the exactness rule of the type (Class, Scale,
// Digits, for a text column: Text; RoundTrip, the column's own type, for a
// typed one) and, for a DST check, the wall-clock value (Wall, the
// declared_wall fragment) and its Zone.
type declared struct {
	Table, Column, Type string
	Value, TryValue     string
	Check               string // convert, exact, gap, repeat
	Class               string // number, date, timestamp, time, interval or ""
	Scale, Digits       int
	Text                bool
	RoundTrip           string
	Wall, Zone          string
	// NamedWall and NamedZone are SQL of a text's own zone name and its
	// wall-clock time there, for a declared TIMESTAMPTZ (declared_named_zone).
	NamedWall, NamedZone string
	// Limit is how many rows declared_type_check returns (1 when 0).
	Limit int
}

// exactness is what a declared type holds, from the name DuckDB resolves it
// to (type_of): an integer type is a number of Scale 0, DECIMAL(p,s) one of
// Scale s; a timestamp holds Digits fraction digits of a second
// (TIMESTAMP_S 0, _MS 3, _NS 9, else 6); DATE is a date; TIME is a time of
// day of Digits 6 (TIME_NS 9); INTERVAL is a plain duration of Digits 6
// (rules/inexact_text.sql; issue 30, item 2). Any other type
// (DOUBLE, VARCHAR, BOOLEAN, …) has no class: its text converts as DuckDB
// casts it.
func exactness(resolved string) (class string, scale, digits int) {
	u := strings.ToUpper(resolved)
	if m := decimalType.FindStringSubmatch(u); m != nil {
		if m[3] != "" {
			scale, _ = strconv.Atoi(m[3])
		}
		return "number", scale, 0
	}
	if ducktype.IsInteger(u) {
		return "number", 0, 0
	}
	switch u {
	case "DATE":
		return "date", 0, 0
	case "TIMESTAMP_S":
		return "timestamp", 0, 0
	case "TIMESTAMP_MS":
		return "timestamp", 0, 3
	case "TIMESTAMP_NS":
		return "timestamp", 0, 9
	case "TIMESTAMP", "TIMESTAMP WITH TIME ZONE":
		return "timestamp", 0, 6
	case "TIME":
		return "time", 0, 6
	case "TIME_NS":
		return "time", 0, 9
	case "INTERVAL":
		return "interval", 0, 6
	}
	return "", 0, 0
}

// conversion renders the conversion of column (DuckDB type from) of table
// to the declared type typ (which DuckDB resolves to resolved), a
// TIMESTAMP WITH TIME ZONE read in zone.
func conversion(table, column, from, typ, resolved, zone string) (declared, error) {
	from = strings.ToUpper(from)
	data := declared{Table: table, Column: column, Type: typ, Check: "convert", Text: from == "VARCHAR"}
	data.Class, data.Scale, data.Digits = exactness(resolved)
	if !data.Text {
		if _, err := sqlfile.TypeName(from); err == nil && !strings.EqualFold(from, resolved) {
			data.RoundTrip = from
		}
	}
	if zone == "" {
		zone = "UTC"
	}
	v := struct {
		Column, From, Type, Zone, Cast, TryValue string
		Zoneless, Zoned                          bool
	}{Column: column, From: from, Type: typ, Cast: "CAST", Zoneless: zonelessType.MatchString(typ)}
	if zonedType.MatchString(typ) {
		v.Zone = zone
		data.RoundTrip = "" // the zone, not a cast, converts it
	}
	var err error
	if data.Value, err = statements().SQL(queries.LoadDeclaredValue, v); err != nil {
		return data, err
	}
	v.Cast = "TRY_CAST"
	if data.TryValue, err = statements().SQL(queries.LoadDeclaredValue, v); err != nil {
		return data, err
	}
	// A text naming its zone (10:00 Europe/Berlin) is checked in that zone,
	// whatever the input's.
	if v.Zone != "" && from == "VARCHAR" {
		for _, part := range []struct {
			name string
			to   *string
		}{{"wall", &data.NamedWall}, {"zone", &data.NamedZone}} {
			if *part.to, err = statements().SQL(queries.LoadDeclaredNamedZone, struct{ Column, Part string }{column, part.name}); err != nil {
				return data, err
			}
		}
	}
	// A zone with DST changes (any but UTC) makes a wall-clock time skipped
	// or repeated: checked for a TIMESTAMPTZ read in it and for a zone-less
	// TIMESTAMP, which the checks read in it.
	if zone != "UTC" && (v.Zone != "" || v.Zoneless) {
		v.Zoned, v.TryValue = v.Zone != "", data.TryValue
		data.Zone = zone
		if data.Wall, err = statements().SQL(queries.LoadDeclaredWall, v); err != nil {
			return data, err
		}
	}
	return data, nil
}

// zoneName is the name a timestamp text gives its zone after the time of
// day (IST, Europe/Berlin, UTC), in group 1.
var zoneName = regexp.MustCompile(`\d\s*([A-Za-z][A-Za-z0-9_+/-]*)\s*$`)

// ianaZone is a zone name that rules/inexact_text.sql accepts: Z, UTC or
// Area/Location with an area of the tz database (Etc/Unknown, ICU's name
// for no zone, is none).
var ianaZone = regexp.MustCompile(`^(Z|z|UTC|(?i:(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc|Brazil|Canada|Chile|Mexico|US)(/[A-Za-z0-9_+-]+)+))$`)

// badZoneName is the zone name of timestamp text v when it is no zone
// the rule accepts (an abbreviation such as IST, utc, SystemV/AST4), for
// the error; "" otherwise.
func badZoneName(v string) string {
	m := zoneName.FindStringSubmatch(v)
	if m == nil || ianaZone.MatchString(m[1]) && !strings.EqualFold(m[1], "Etc/Unknown") {
		return ""
	}
	return m[1]
}

// zonedType is a declared TIMESTAMP WITH TIME ZONE, in either spelling.
var zonedType = regexp.MustCompile(`(?i)^\s*(TIMESTAMPTZ|TIMESTAMP\s+WITH\s+TIME\s+ZONE)\s*$`)

// zonelessType is a declared zone-less TIMESTAMP (any precision).
var zonelessType = regexp.MustCompile(`(?i)^\s*(TIMESTAMP(_S|_MS|_NS|_US)?|TIMESTAMP\s+WITHOUT\s+TIME\s+ZONE|DATETIME)\s*$`)

var decimalType = regexp.MustCompile(`(?i)^\s*(DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)\s*$`)

// ResolveType returns the name DuckDB resolves a declared type (the types:
// option) to — INTEGER for int, DECIMAL(18,3) for DECIMAL — without reading
// any row. A type DuckDB does not have (FOO) or refuses (DECIMAL(5,10)) is a
// spec.ErrInvalid (exit 2) naming the input role, the column and the type.
func ResolveType(ctx context.Context, db *duck.DB, role string, d sources.Column) (string, error) {
	_, rows, err := db.StringsFile(ctx, statements(), queries.LoadTypeOf, struct{ Type string }{d.Type})
	if err == nil && len(rows) == 1 && rows[0][0] != nil {
		return *rows[0][0], nil
	}
	why := "not a type"
	if err != nil {
		why = duckReason(err)
	}
	return "", fmt.Errorf("%w: %s: types: column %s: %s is not a DuckDB type (%s); use one such as VARCHAR, BIGINT, DECIMAL(18,2), DATE, TIMESTAMP or TIMESTAMPTZ", spec.ErrInvalid, role, d.Name, d.Type, why)
}

// duckReason is the first line of a DuckDB error without the statement
// DuckDB's driver prefixes ("duckdb: SELECT …: Catalog Error: …").
func duckReason(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if i := strings.Index(msg, " Error: "); i >= 0 {
		if j := strings.LastIndex(msg[:i], ": "); j >= 0 {
			msg = msg[j+2:]
		}
	}
	return strings.TrimSpace(msg)
}

// CheckDeclared refuses, before any row is read, what an input's declared
// types and value formats cannot read exactly: a type DuckDB does not have
// or refuses (ResolveType), and a timestampformat: (or dateformat:) that
// reads a zone or offset (%z, %Z) for a column declared a zone-less
// TIMESTAMP (or DATE), which would drop it. Errors are spec.ErrInvalid
// (exit 2) naming role, column and type.
func CheckDeclared(ctx context.Context, db *duck.DB, role string, types []sources.Column, f sources.ValueFormats) error {
	for _, d := range types {
		if _, err := ResolveType(ctx, db, role, d); err != nil {
			return err
		}
		if err := zonePattern(role, d, f); err != nil {
			return err
		}
	}
	return nil
}

// zonePattern refuses a date or timestamp pattern with %z or %Z for a
// column declared DATE or a zone-less TIMESTAMP: the pattern reads an
// offset that the type has no place for (strptime's instant would become
// UTC wall-clock time, then be read in the input's zone).
func zonePattern(role string, d sources.Column, f sources.ValueFormats) error {
	key, pattern := "", ""
	switch {
	case zonelessType.MatchString(d.Type):
		key, pattern = "timestampformat", f.TimestampFormat
	case strings.EqualFold(strings.TrimSpace(d.Type), "DATE"):
		key, pattern = "dateformat", f.DateFormat
	default:
		return nil
	}
	if strings.Contains(pattern, "%z") || strings.Contains(pattern, "%Z") {
		return fmt.Errorf("%w: %s: %s: %q reads a zone or offset (%%z, %%Z), but column %s is declared %s, which has none and would drop it: declare TIMESTAMPTZ", spec.ErrInvalid, role, key, pattern, d.Name, d.Type)
	}
	return nil
}

// exactReason says why a value (nil for none) that converts was refused by
// the exact check of d, for the error.
func exactReason(d declared, value *string) string {
	switch {
	case d.Text && d.Class == "timestamp" && value != nil && badZoneName(*value) != "":
		return fmt.Sprintf("it names its zone %s, which is neither Z, UTC, an offset nor an IANA zone name (Area/Location): an abbreviation names no one zone (IST is India's, Israel's or Ireland's; PST is read as -07:00 in July) and DuckDB's cast would pick one without a word; write the offset (+05:30) or an IANA name (Asia/Kolkata, Europe/Dublin)", badZoneName(*value))
	case d.Text && d.Class == "number" && d.Scale == 0 && decimalType.MatchString(d.Type):
		return "a DECIMAL of scale 0 holds a plain integer (an optional sign and digits: no fraction digits, exponent, hex or _), and DuckDB's cast would round a fraction (1.5 becoming 2)"
	case d.Text && d.Class == "number" && d.Scale == 0:
		return "an integer type holds a plain integer (an optional sign and digits: no fraction digits, exponent, hex or _), and DuckDB's cast would round a fraction (1.5 becoming 2)"
	case d.Text && d.Class == "number":
		return fmt.Sprintf("it holds a plain decimal number (an optional sign, digits, a point: no exponent, hex or _) of at most %d fraction digits, and DuckDB's cast would round or rewrite the value", d.Scale)
	case d.Text && d.Class == "date":
		return "a DATE is a plain date written YYYY-MM-DD (a two-digit month and day), and DuckDB's cast would read another layout as some day or drop a time of day (even 00:00:00): a dateformat: for another layout, or declare TIMESTAMP for a time of day"
	case d.Text && d.Class == "time":
		return fmt.Sprintf("a %s is a plain time of day written H:MM or H:MM:SS with at most %d fraction digits of a second (0:00 to 23:59:59, or 24:00:00), and DuckDB's cast would drop a date (2024-01-01 12:00:00 becoming 12:00:00), an offset or zone (12:00:00+05 becoming 12:00:00) or further non-zero digits: declare TIMESTAMP or TIMESTAMPTZ for a date and time", strings.ToUpper(strings.TrimSpace(d.Type)), d.Digits)
	case d.Text && d.Class == "interval":
		return "an INTERVAL is a plain duration: integer parts with units (year, mon, month, week, day, hour, minute, second, millisecond, microsecond, also plural), such as 1 year 2 months 3 days, and optionally a time H:MM or H:MM:SS with at most 6 fraction digits last, or such a time alone (720:00:00); DuckDB's cast would read a fraction of a unit by taking a month for 30 days or a day for 24 hours (0.5 months becoming 15 days), drop the units before a time (04:05:06 1 day becoming 04:05:06), read 1M as a minute and drop further digits"
	case d.Text && d.Class == "timestamp":
		return fmt.Sprintf("it holds an ISO 8601 timestamp (YYYY-MM-DD, optionally T or a space and hh:mm[:ss[.fraction]], and a zone or offset) with at most %d fraction digits of a second, and DuckDB's cast would read another layout (epoch, 1970-1-1, 24:00:00) as some instant or drop further non-zero digits (TIMESTAMP_NS holds nanoseconds, zone-less): declare a timestampformat: for another layout", d.Digits)
	}
	return fmt.Sprintf("the %s value reads back as another value once converted (the declared type holds less)", d.RoundTrip)
}

// applyDeclared converts each column the location declares a type for
// (Input.Declared, sorted by column) after checking every value: a value
// that does not convert, or that the cast would change (exactness: a
// fraction an integer type or a DECIMAL would round, a number not written
// as a plain decimal, a date with a time of day, a timestamp with more
// fraction digits than its type holds, a time of day not written as a plain
// H:MM[:SS[.fraction]] (a date, an offset or more fraction digits than TIME
// holds, which the cast drops), an interval not written as a plain duration
// (rules/inexact_text.sql), a typed value that reads back as another), or a
// wall-clock time that a DST change of zone skips or
// repeats, is an error naming file, line, column and value and what was
// expected (and, when no format was declared for a date, timestamp or
// decimal comma, the option that would read it). A type DuckDB does not
// have is a spec.ErrInvalid (ResolveType). A declared column the input
// lacks is an ErrInvalidLocation; declared types name the control's
// columns, after rename. A declared TIMESTAMP WITH TIME ZONE reads
// zone-less values in zone ("" is UTC).
func applyDeclared(ctx context.Context, db *duck.DB, table, role string, declared []sources.Column, formats sources.ValueFormats, rename map[string]string, zone string, refuse refusal) error {
	if len(declared) == 0 {
		return nil
	}
	cols, err := db.Columns(ctx, table)
	if err != nil {
		return err
	}
	have := map[string]string{}
	for _, c := range cols {
		have[c.Name] = c.Type
	}
	for _, d := range declared {
		from, ok := have[d.Name]
		if !ok {
			if to, renamed := rename[d.Name]; renamed {
				return fmt.Errorf("%w: option types names column %s, which rename: calls %s: types: names the control's columns", sources.ErrInvalidLocation, d.Name, to)
			}
			return fmt.Errorf("%w: option types names column %s, which the input does not have", sources.ErrInvalidLocation, d.Name)
		}
		resolved, err := ResolveType(ctx, db, role, d)
		if err != nil {
			return err
		}
		data, err := conversion(table, d.Name, from, d.Type, resolved, zone)
		if err != nil {
			return err
		}
		// A zone-less TIMESTAMP's value may be a good timestamp that names
		// its zone, which the type would silently drop: then that, not a
		// format, is what to declare. zonedBad are the rows (at most as
		// many as are refused) that do not convert to a TIMESTAMPTZ either.
		var zonedBad map[int64]bool
		failConvert := func(row badRow) error {
			hint := formatHint(d.Type, formats, row.value)
			if zonelessType.MatchString(d.Type) {
				if zonedBad == nil {
					zoned, err := conversion(table, d.Name, from, "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "UTC")
					if err != nil {
						return err
					}
					zoned.Limit = refuse.limit()
					rows, err := declaredRows(ctx, db, zoned)
					if err != nil {
						return err
					}
					zonedBad = map[int64]bool{}
					for _, r := range rows {
						zonedBad[r.row] = true
					}
				}
				if !zonedBad[row.row] {
					hint = " (a value naming a zone or offset is not a zone-less TIMESTAMP: declare TIMESTAMPTZ)"
				}
			}
			return fmt.Errorf("%s does not convert to the declared type %s%s", row.msg, d.Type, hint)
		}
		if err := refuse.declared(ctx, db, data, failConvert); err != nil {
			return err
		}
		for _, c := range []string{"exact", "gap", "repeat", "gap named", "repeat named"} {
			check, named := strings.CutSuffix(c, " named")
			if c != "exact" && (named && data.NamedWall == "" || !named && data.Wall == "") {
				continue
			}
			run := data
			run.Check = check
			if !named {
				run.NamedWall = ""
			}
			err := refuse.declared(ctx, db, run, func(row badRow) error {
				msg, value := row.msg, row.value
				if named {
					return fmt.Errorf("%s names its zone, and its wall-clock time there %s, read as the declared type %s: write the value with its offset", msg, map[string]string{"gap": "does not exist (a DST change skips it)", "repeat": "occurs twice (a DST change repeats it): which instant it is cannot be told"}[check], d.Type)
				}
				switch check {
				case "exact":
					advice := ""
					if value != nil && !formats.Numbers() {
						advice = decimalCapacity(d.Type, *value)
					}
					return fmt.Errorf("%s does not convert exactly to the declared type %s: %s%s", msg, d.Type, exactReason(data, value), advice)
				case "gap":
					return fmt.Errorf("%s is a wall-clock time that does not exist in %s (a DST change skips it), read as the declared type %s: check the input's time_zone, or write the value with its offset%s", msg, zone, d.Type, declareZoned(d.Type))
				default:
					return fmt.Errorf("%s is a wall-clock time that occurs twice in %s (a DST change repeats it), read as the declared type %s: which instant it is cannot be told; write the value with its offset%s", msg, zone, d.Type, declareZoned(d.Type))
				}
			})
			if err != nil {
				return err
			}
		}
		if err := db.ExecFile(ctx, statements(), queries.LoadSetType, data); err != nil {
			return err
		}
	}
	return nil
}

// declareZoned is the advice to declare TIMESTAMPTZ, for a zone-less type.
func declareZoned(typ string) string {
	if zonedType.MatchString(typ) {
		return ""
	}
	return " and declare TIMESTAMPTZ"
}

// declaredRows runs declared_type_check for data and returns the rows it
// finds (data.Limit of them, the first when 0), each as badRows gives it.
func declaredRows(ctx context.Context, db *duck.DB, data declared) ([]badRow, error) {
	q, err := statements().SQL(queries.LoadDeclaredTypeCheck, data)
	if err != nil {
		return nil, err
	}
	rows, err := badRows(ctx, db, data.Table, q, data.Column)
	if err != nil {
		return nil, fmt.Errorf("check declared type %s of %s: %w", data.Type, data.Column, err)
	}
	return rows, nil
}

// declared applies r to the rows data's declared_type_check finds.
func (r refusal) declared(ctx context.Context, db *duck.DB, data declared, fail func(badRow) error) error {
	return r.refuse(ctx, db, data.Table, data.Column, fmt.Sprintf("check declared type %s of %s", data.Type, data.Column), func(limit int) (string, error) {
		data.Limit = limit
		return statements().SQL(queries.LoadDeclaredTypeCheck, data)
	}, fail)
}
