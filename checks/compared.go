package checks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

// Compared is one column compared on every matched id, as the check
// templates see it (Params.Compared): the plan's column with what its
// comparison needs in SQL. The helpers cmpvalue, cmpraw, cmpdiffers,
// cmpdifference and cmpwithin render its rules (queries/rules/compared_*.sql,
// within_tolerance.sql).
type Compared struct {
	ComparedColumn
	// Source and Sink are the column in each input.
	Source, Sink Operand
	// Decimal is, for MethodNumber, the exact type both values are compared
	// and subtracted in: DECIMAL(38,s), s the largest scale either needs.
	Decimal string
	// Float is, for MethodFloat, the floating-point type both are read as:
	// FLOAT when either side is FLOAT, else DOUBLE.
	Float string
	// WallClock is true for two zone-less timestamps of one type read in one
	// zone: equal when their wall-clock values are (differences and
	// tolerances still use the instants).
	WallClock bool
	// Tol is the tolerance as SQL applies it (nil when none).
	Tol *ToleranceSQL
	// Keyed is true for a group column with normalize: that is compared
	// too: Prepare normalised it in place as a key (Params.KeyNormalize),
	// so its stored values are the normalised ones and are compared as
	// they are; its values as written, where normalising changed them, are
	// in table key_spellings.
	Keyed bool
}

// Operand is one input's side of a compared column.
type Operand struct {
	// Type is the column's DuckDB type in that input.
	Type string
	// Kind is how its values are read: "text" (text read as the other
	// side's type, or text against text), "zoned" (an instant), "zoneless"
	// (wall-clock time in Zone) or "typed" (as they are).
	Kind string
	// Zone is the zone its zone-less timestamps are read in.
	Zone string
	// Cast is, for text read as a BOOLEAN, DATE, TIME, UUID or INTERVAL,
	// the type it is read as ("" otherwise).
	Cast string
}

// ToleranceSQL is a declared tolerance as queries/rules/within_tolerance.sql
// applies it, exactly: a difference d = sink − source is within an absolute
// tolerance a when |d| ≤ a, compared in Decimal; within a relative one r
// (the fraction of the source value) when |d| ≤ |source| × r, both sides in
// Product; within a duration when the instants are at most Micros
// microseconds apart (Days: the values are dates, a difference counted in
// days). A NULL on either side is never within tolerance.
type ToleranceSQL struct {
	Tolerance
	// Decimal is DECIMAL(38,s) with s the larger of the values' and the
	// amount's scales (absolute); Fraction the exact type of the fraction and
	// Product DECIMAL(38, s + its scale) (relative).
	Decimal, Fraction, Product string
	Micros                     int64
	Days                       bool
}

// toleranceSQL prepares tolerance t for a column compared by method m whose
// values are in the exact type dec (DECIMAL(38,s), for numbers).
func toleranceSQL(t Tolerance, m Method, dec string) (*ToleranceSQL, error) {
	ts := &ToleranceSQL{Tolerance: t}
	switch t.Kind {
	case ToleranceDuration:
		ts.Micros = time.Duration(t.Duration).Microseconds()
		ts.Days = m == MethodDate
		return ts, nil
	}
	s, _, ok := decimalDigits(dec)
	if !ok {
		return nil, fmt.Errorf("%w: no exact type for a tolerance of %s", ErrColumn, dec)
	}
	digits := func(v string) (int, int) {
		i, f, _ := strings.Cut(v, ".")
		return len(strings.TrimLeft(i, "0")), len(f)
	}
	ai, af := digits(t.Amount)
	switch t.Kind {
	case ToleranceAbsolute:
		scale := max(s, af)
		if ai+scale > maxPrecision {
			return nil, fmt.Errorf("%w: tolerance %s needs more digits than an exact DECIMAL holds", ErrColumn, t.Text)
		}
		ts.Decimal = decimalType(maxPrecision, scale)
	case ToleranceRelative:
		if s+af > maxPrecision || ai+af > maxPrecision {
			return nil, fmt.Errorf("%w: tolerance %s of a value with %d decimals needs more digits than an exact DECIMAL holds", ErrColumn, t.Text, s)
		}
		ts.Fraction = decimalType(max(ai+af, 1), af)
		ts.Product = decimalType(maxPrecision, s+af)
	}
	return ts, nil
}

// prepareCompared checks the values of one compared column that the
// comparison reads from text (every one must read), and returns the column
// as the templates see it with notes on how it was compared. keyEmpty are
// the key columns whose empty text Prepare counted (emptyIDs) and then
// converted to NULL: such a column holds none, and is not counted again for
// the note on empty values. keyed: the column is a key Prepare normalised
// in place (Compared.Keyed).
func prepareCompared(ctx context.Context, db *duck.DB, cc ComparedColumn, zones map[string]string, measures []string, keyEmpty map[string]int64, keyed bool) (Compared, []string, error) {
	c := Compared{ComparedColumn: cc, Keyed: keyed && len(cc.Normalize) > 0}
	c.Source = operand(cc.SourceType, cc.SinkType, cc.Method, zones[SourceTable])
	c.Sink = operand(cc.SinkType, cc.SourceType, cc.Method, zones[SinkTable])
	var notes []string
	switch cc.Method {
	case MethodNumber:
		// A text value must be a plain decimal number, read at the scale the
		// data needs (a measure holds its exact type already).
		what := "compared column"
		if slices.Contains(measures, cc.Name) {
			what = "measure"
		}
		_, arith, err := numberType(ctx, db, what, cc.Name, cc.SourceType, cc.SinkType)
		if err != nil {
			var nd *notDecimal
			switch {
			case slices.Contains(measures, cc.Name) || errors.As(err, new(tooWide)):
			case errors.As(err, &nd):
				nd.prefix = "compared column " + cc.Name + ": "
			default:
				err = fmt.Errorf("compared column %s: %w", cc.Name, err)
			}
			return c, nil, err
		}
		c.Decimal = arith
		if c.Source.Kind == "text" || c.Sink.Kind == "text" {
			notes = append(notes, fmt.Sprintf("column %s is %s in the source and %s in the sink: compared by exact value as %s (text read as a plain decimal number)", cc.Name, cc.SourceType, cc.SinkType, c.Decimal))
		}
	case MethodTimestamp:
		fs, fk := familyOf(cc.SourceType), familyOf(cc.SinkType)
		c.WallClock = fs == famZoneless && fk == famZoneless && strings.EqualFold(cc.SourceType, cc.SinkType) && zones[SourceTable] == zones[SinkTable]
		if err := checkReadable(ctx, db, &c); err != nil {
			return c, nil, err
		}
		if fs != famZoned || fk != famZoned { // two instants need no word on zones
			notes = append(notes, timestampNote("column "+cc.Name, cc.SourceType, cc.SinkType, zones, c.WallClock))
		}
	case MethodInterval:
		if err := checkReadable(ctx, db, &c); err != nil {
			return c, nil, err
		}
		notes = append(notes, intervalNote(cc, c.Source, c.Sink))
	case MethodBoolean, MethodDate, MethodValue:
		if err := checkReadable(ctx, db, &c); err != nil {
			return c, nil, err
		}
		for _, o := range []struct {
			side string
			op   Operand
		}{{"source", c.Source}, {"sink", c.Sink}} {
			if o.op.Cast != "" {
				notes = append(notes, fmt.Sprintf("column %s is %s in the source and %s in the sink: the %s's text read as %s", cc.Name, cc.SourceType, cc.SinkType, o.side, o.op.Cast))
			}
		}
	case MethodFloat:
		c.Float = floatTypeOf(cc.SourceType, cc.SinkType)
		if err := checkReadable(ctx, db, &c); err != nil {
			return c, nil, err
		}
		notes = append(notes, fmt.Sprintf("column %s is %s in the source and %s in the sink: compared as binary floating point (%s: each value read as the nearest %s; values that differ below its precision are not told apart), without a difference", cc.Name, cc.SourceType, cc.SinkType, c.Float, c.Float))
	case MethodText:
		var empty int64
		if _, key := keyEmpty[cc.Name]; !key {
			n, err := db.CountFile(ctx, prepareSQL, queries.PrepareEmptyIDs, struct{ Cols []string }{[]string{cc.Name}})
			if err != nil {
				return c, nil, err
			}
			empty = n
		}
		if empty > 0 {
			notes = append(notes, fmt.Sprintf("column %s: %d empty value(s) compared as NULL, as an empty CSV field is", cc.Name, empty))
		}
		if len(cc.Normalize) > 0 && !c.Keyed { // a key's note is Prepare's (keyNormalizeNote)
			notes = append(notes, fmt.Sprintf("column %s compared after %s; every match that needed it is listed by normalized_matches", cc.Name, strings.Join(cc.Normalize, " and ")))
		}
	}
	if cc.Tolerance != nil {
		tol, err := toleranceSQL(*cc.Tolerance, cc.Method, c.Decimal)
		if err != nil {
			return c, nil, fmt.Errorf("tolerance.%s: %w", cc.Name, err)
		}
		c.Tol = tol
	}
	return c, notes, nil
}

// operand is the side of type typ of a column compared by method m with a
// column of type other, its zone-less timestamps read in zone.
func operand(typ, other string, m Method, zone string) Operand {
	o := Operand{Type: typ, Zone: zone, Kind: "typed"}
	switch f := familyOf(typ); {
	case f == famText:
		o.Kind = "text"
		if m == MethodBoolean || m == MethodDate || m == MethodValue || m == MethodInterval {
			o.Cast = strings.ToUpper(strings.TrimSpace(other))
		}
	case f == famZoned:
		o.Kind = "zoned"
	case f == famZoneless:
		o.Kind = "zoneless"
	}
	return o
}

// checkReadable fails with ErrValue, naming file, line and value, when a
// text value of c (read as the other input's type) does not read as one or
// would be read as another (a DATE with a time of day, a TIME with a date,
// an offset or digits beyond microseconds, an instant with digits beyond
// microseconds), or when a nanosecond timestamp compared as a microsecond instant would
// lose digits.
func checkReadable(ctx context.Context, db *duck.DB, c *Compared) error {
	sides := []struct {
		table, role string
		op          Operand
	}{{SourceTable, "source", c.Source}, {SinkTable, "sink", c.Sink}}
	for _, side := range sides {
		var what, class string
		switch {
		case side.op.Kind == "text" && c.Method == MethodTimestamp:
			what = "a timestamp (ISO 8601: 2024-03-01 10:00:00 or 2024-03-01T10:00:00.5, with or without a zone or offset such as +01:00 or Z) of whole microseconds (it is compared as an instant, which holds microseconds)"
			class = "instant"
		case side.op.Kind == "text" && c.Method == MethodFloat:
			what = "a number (such as -1.5, 2.5e-3, NaN or Infinity)"
		case side.op.Kind == "text" && c.Method == MethodInterval:
			what = "an INTERVAL (a plain duration: integer parts with units such as 1 year 2 months 3 days, an optional time H:MM[:SS[.fraction]] last, or 720:00:00 alone; a fraction of a unit would be read by taking a month for 30 days or a day for 24 hours, and other forms or further digits would be read as some other interval)"
			class = "interval"
		case side.op.Kind == "text":
			what = "a " + side.op.Cast
			if side.op.Cast == "DATE" {
				what += " (a plain date written YYYY-MM-DD: a time of day would be dropped)"
				class = "date"
			}
			if side.op.Cast == "TIME" {
				what += " (a plain time of day written H:MM or H:MM:SS with at most 6 fraction digits, such as 9:00, 12:00:00 or 12:00:00.5: a date, an offset or further digits would be dropped)"
				class = "time"
			}
			if c.Method == MethodBoolean {
				what += " (true/false, t/f, yes/no, y/n, 1/0)"
			}
		case strings.EqualFold(side.op.Type, "TIMESTAMP_NS") && !c.WallClock:
			what = "a timestamp in whole microseconds (it is compared as an instant, which holds microseconds)"
		default:
			continue
		}
		value, err := comparedValue("", c, side.role, false, true, true)
		if err != nil {
			return err
		}
		cond, err := prepareSQL.SQL(queries.PrepareNotReadable, struct {
			Col, Value, Class string
			Nanos             bool
		}{c.Name, value, class, side.op.Kind != "text"})
		if err != nil {
			return err
		}
		// An input with bad_records: report lists such rows as bad
		// records instead (load.Refuse).
		reason := fmt.Sprintf("is not %s, as the comparison with the %s's %s needs", what, other(side.role), otherType(c, side.role))
		if _, err := load.Refuse(ctx, db, side.table, side.role, c.Name, cond, reason, func(msg string, _ *string) error {
			return fmt.Errorf("%w: %s in the %s %s", ErrValue, msg, side.role, reason)
		}); err != nil {
			return err
		}
	}
	if c.Method == MethodTimestamp && !c.WallClock {
		for _, side := range sides {
			if side.op.Kind != "zoneless" && side.op.Kind != "text" {
				continue
			}
			why := fmt.Sprintf("to be compared with the %s's %s", other(side.role), otherType(c, side.role))
			if err := checkWallClock(ctx, db, side.table, side.role, c.Name, side.op.Type, side.op.Zone, why); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkWallClock fails with ErrTime, naming file, line and value, when a
// value of column col (DuckDB type typ) of table, read as wall-clock time
// in zone to be an instant, is one that a DST change of zone skips or
// repeats (prepare/wall_clock.sql, rules/wall_dst.sql): it names no one
// instant, and DuckDB's reading (ICU's) would move it by the change or pick
// one of the two offsets without a word. A zone without DST changes (UTC)
// has none to find. why says what the instant is for, in the message.
func checkWallClock(ctx context.Context, db *duck.DB, table, role, col, typ, zone, why string) error {
	if zone == "" || strings.EqualFold(zone, "UTC") {
		return nil
	}
	for _, check := range []string{"gap", "repeat"} {
		cond, err := prepareSQL.SQL(queries.PrepareWallClock, struct{ Col, Type, Zone, Check string }{col, typ, zone, check})
		if err != nil {
			return err
		}
		msg, bad, err := load.BadValue(ctx, db, table, col, cond)
		if err != nil {
			return err
		}
		if !bad {
			continue
		}
		if check == "gap" {
			return fmt.Errorf("%w: %s in the %s is a wall-clock time that does not exist in %s (a DST change skips it), read there as an instant %s: check the input's time_zone:, or write the value with its offset", ErrTime, msg, role, zone, why)
		}
		return fmt.Errorf("%w: %s in the %s is a wall-clock time that occurs twice in %s (a DST change repeats it), read there as an instant %s: which instant it is cannot be told; write the value with its offset", ErrTime, msg, role, zone, why)
	}
	return nil
}

func other(role string) string {
	if role == "source" {
		return "sink"
	}
	return "source"
}

func otherType(c *Compared, role string) string {
	if role == "source" {
		return c.SinkType
	}
	return c.SourceType
}

// timestampNote says which zone was used for which input of a timestamp
// column compared (or matched) as instants.
func timestampNote(what, srcType, sinkType string, zones map[string]string, wallClock bool) string {
	if wallClock {
		return fmt.Sprintf("%s is a zone-less %s in both inputs, each read in %s: compared as wall-clock values", what, srcType, zones[SourceTable])
	}
	side := func(role, typ, zone string) string {
		switch familyOf(typ) {
		case famZoned:
			return fmt.Sprintf("%s in the %s (instants)", typ, role)
		case famZoneless:
			return fmt.Sprintf("a zone-less %s in the %s read as wall-clock time in %s", typ, role, zone)
		}
		return fmt.Sprintf("text in the %s (a value naming a zone or offset is that instant, one without wall-clock time in %s)", role, zone)
	}
	return fmt.Sprintf("%s is %s and %s: compared as instants", what, side("source", srcType, zones[SourceTable]), side("sink", sinkType, zones[SinkTable]))
}

// keyConversion makes an id or group column comparable across the inputs:
// the conversions of each table (by table name) and notes. empty is how
// many source and sink rows hold empty text in it (emptyIDs), for a column
// compared as text.
func keyConversion(ctx context.Context, db *duck.DB, k KeyColumn, zones map[string]string, empty int64) ([]string, map[string]conversion, error) {
	out := map[string]conversion{}
	var notes []string
	text := k.Method == MethodText
	switch {
	case k.AsText:
		for _, t := range []string{SourceTable, SinkTable} {
			out[t] = conversion{Name: k.Name, AsText: true}
		}
		notes = append(notes, fmt.Sprintf("column %s is %s in the source and %s in the sink: compared as text, each value rendered from its own type (a BIGINT 7 is \"7\", a text \"007\" stays \"007\")", k.Name, k.SourceType, k.SinkType))
	case k.Method == MethodInterval:
		return intervalKeyConversion(ctx, db, k, zones)
	case k.Method == MethodTimestamp, k.Method == MethodBoolean, k.Method == MethodDate, k.Method == MethodValue:
		c := &Compared{ComparedColumn: ComparedColumn{Name: k.Name, SourceType: k.SourceType, SinkType: k.SinkType, Method: k.Method}}
		c.Source = operand(k.SourceType, k.SinkType, k.Method, zones[SourceTable])
		c.Sink = operand(k.SinkType, k.SourceType, k.Method, zones[SinkTable])
		if k.Method == MethodTimestamp {
			c.WallClock = familyOf(k.SourceType) == famZoneless && familyOf(k.SinkType) == famZoneless && strings.EqualFold(k.SourceType, k.SinkType) && zones[SourceTable] == zones[SinkTable]
			if c.WallClock || familyOf(k.SourceType) == famZoned && familyOf(k.SinkType) == famZoned {
				break // equal as they are
			}
		} else if c.Source.Cast == "" && c.Sink.Cast == "" {
			break // one type on both sides
		}
		if err := checkReadable(ctx, db, c); err != nil {
			return nil, nil, err
		}
		for _, side := range []struct{ table, role string }{{SourceTable, "source"}, {SinkTable, "sink"}} {
			op := c.Source
			if side.role == "sink" {
				op = c.Sink
			}
			if k.Method != MethodTimestamp && op.Cast == "" {
				continue
			}
			if k.Method == MethodTimestamp && op.Kind == "zoned" {
				continue
			}
			typed, err := comparedValue("", c, side.role, false, true, false)
			if err != nil {
				return nil, nil, err
			}
			out[side.table] = conversion{Name: k.Name, Typed: typed}
		}
		if k.Method == MethodTimestamp {
			notes = append(notes, timestampNote("column "+k.Name+" (matched)", k.SourceType, k.SinkType, zones, false)+"; rewritten as TIMESTAMP WITH TIME ZONE in both")
		} else {
			notes = append(notes, fmt.Sprintf("column %s (matched) is %s in the source and %s in the sink: text read as %s", k.Name, k.SourceType, k.SinkType, c.Source.Cast+c.Sink.Cast))
		}
	case k.Method == MethodNumber && !strings.EqualFold(k.SourceType, k.SinkType):
		notes = append(notes, fmt.Sprintf("column %s (matched) is %s in the source and %s in the sink: matched by exact value", k.Name, k.SourceType, k.SinkType))
	}
	if text || k.AsText {
		if empty > 0 {
			for _, t := range []string{SourceTable, SinkTable} {
				cv := out[t]
				cv.Name, cv.EmptyAsNull = k.Name, true
				out[t] = cv
			}
			notes = append(notes, fmt.Sprintf("column %s: %d empty value(s) compared as NULL, as an empty CSV field is", k.Name, empty))
		}
	}
	return notes, out, nil
}

// comparedNote lists the columns compared, each with its method,
// normalisation and tolerance ("amount (number, tolerance 0.01 (the
// default))", "name (text, exactly: default tolerance 0.01 does not apply
// to VARCHAR)"), and those left uncompared.
func comparedNote(p *Params) string {
	var cmp []string
	for _, c := range p.Compared {
		s := c.Name + " (" + string(c.Method)
		if len(c.Normalize) > 0 {
			s += ", after " + strings.Join(c.Normalize, " and ")
		}
		switch {
		case c.Tolerance != nil && c.ToleranceDefault:
			s += ", tolerance " + c.Tolerance.Text + " (the default)"
		case c.Tolerance != nil:
			s += ", tolerance " + c.Tolerance.Text
		case c.NoTolerance != "":
			s += ", exactly: " + c.NoTolerance
		}
		cmp = append(cmp, s+")")
	}
	var un []string
	for _, u := range p.Uncompared {
		un = append(un, fmt.Sprintf("%s (%s)", u.Name, u.Reason))
	}
	list := func(xs []string) string {
		if len(xs) == 0 {
			return "none"
		}
		return strings.Join(xs, ", ")
	}
	return fmt.Sprintf("columns compared on every matched id: %s; left uncompared: %s", list(cmp), list(un))
}

// comparedValue renders one side of c (role "source" or "sink", table alias
// alias, "" for none) as the value it is compared by: normalised when
// normalized, as an instant when instant (a timestamp compared by wall
// clock), with try, NULL instead of an error for a value that does not read
// (rules/compared_value.sql).
func comparedValue(alias string, c *Compared, role string, normalized, instant, try bool) (string, error) {
	op := c.Source
	if role == "sink" {
		op = c.Sink
	} else if role != "source" {
		return "", fmt.Errorf("compared value of %s: side %q: want source or sink", c.Name, role)
	}
	return rulesSQL.SQL(queries.RulesComparedValue, struct {
		Alias               string
		C                   *Compared
		Op                  Operand
		Normalized, Instant bool
		Cast                string
	}{alias, c, op, normalized, instant || !c.WallClock, map[bool]string{true: "TRY_CAST", false: "CAST"}[try]})
}

// storedExact reports whether c is compared by number and both inputs hold
// it in one exact numeric type, the same DECIMAL(p,s) or integer type:
// their values then compare exactly as stored, and the cast to c.Decimal
// (DECIMAL(38,s), a 128-bit value for every row of a 10 M-row join) changes
// no comparison. Measured on the issue-15 benchmark data (10 M × 10 M,
// DECIMAL(18,2) on both sides): the join of value_mismatches 1.26–1.45 s
// as stored against 1.45–1.63 s cast.
func (c *Compared) storedExact() bool {
	if c.Method != MethodNumber || c.Source.Kind != "typed" || c.Sink.Kind != "typed" ||
		!strings.EqualFold(strings.TrimSpace(c.Source.Type), strings.TrimSpace(c.Sink.Type)) {
		return false
	}
	f := familyOf(c.Source.Type)
	return f == famDecimal || f == famInteger
}

// comparedPair renders fragment id of rules/ for c over aliases a (source)
// and b (sink): the typed values of both sides, and their instants. Whether
// the two differ (compared_differs) is decided on the stored values when
// both are of one exact numeric type (storedExact).
func comparedPair(id, a, b string, c *Compared) (string, error) {
	var v [4]string
	if id == queries.RulesComparedDiffers && c.storedExact() {
		sa, sb := sqlfile.Qual(a, c.Name), sqlfile.Qual(b, c.Name)
		v = [4]string{sa, sb, sa, sb}
	} else {
		for i, x := range []struct {
			alias, role string
			instant     bool
		}{{a, "source", false}, {b, "sink", false}, {a, "source", true}, {b, "sink", true}} {
			var err error
			if v[i], err = comparedValue(x.alias, c, x.role, true, x.instant, false); err != nil {
				return "", err
			}
		}
	}
	return rulesSQL.SQL(id, struct {
		C                                        *Compared
		Source, Sink, SourceInstant, SinkInstant string
	}{c, v[0], v[1], v[2], v[3]})
}

// within renders whether the difference of source and sink (SQL
// expressions of the values compared, instants for timestamps) is within t
// (rules/within_tolerance.sql).
func within(source, sink string, t *ToleranceSQL) (string, error) {
	return rulesSQL.SQL(queries.RulesWithinTolerance, struct {
		Source, Sink string
		T            *ToleranceSQL
	}{source, sink, t})
}
