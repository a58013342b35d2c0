package mysql

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

// errMyValue marks a MySQL or MariaDB value that has no exact Arrow
// representation (a zero date, a date that is not in the calendar, a decimal
// wider than its column, text that is not UTF-8); the message names the
// table or query, the row, the column and the value.
var errMyValue = errors.New("value cannot be loaded exactly")

// ErrZeroDate is the error (wrapped, with the row, column and value) of a
// MySQL zero date — 0000-00-00, or a date with a zero month or day such as
// 2024-00-10 — in an input that does not say zero_dates: null. It is an
// input error (exit 3): the value is in the data, and no calendar date
// stands for it.
var ErrZeroDate = fmt.Errorf("%w: a zero date is no calendar date", errMyValue)

// myClass is how a MySQL result column is decoded: the wire type as the
// driver names it (driver.RowsColumnTypeDatabaseTypeName) decides it.
type myClass int

const (
	myInt8 myClass = iota + 1
	myUint8
	myInt16
	myUint16
	myInt32
	myUint32
	myInt64
	myUint64
	myYear
	myDecimal
	myFloat32
	myFloat64
	myText
	myBinary
	myDate
	myDateTime
	myTimestamp
	myTime
	myBit
)

// myColumn is one result column of a MySQL or MariaDB read and how it is
// mapped.
type myColumn struct {
	Name string
	// WireType is the driver's name of the result column's type
	// ("UNSIGNED BIGINT", "DECIMAL", "DATETIME", …).
	WireType string
	// MyType is the column's type as the evidence shows it: the catalog's
	// COLUMN_TYPE for a table ("decimal(18,2) unsigned", "tinyint(1)",
	// "enum('a','b')"), else the result metadata's ("DECIMAL(18,2)").
	MyType    string
	Precision int64 // DECIMAL precision and scale; fsp of DATETIME, TIMESTAMP, TIME
	Scale     int64
	class     myClass
	Arrow     arrow.DataType
}

// mapMyType sets c.class and c.Arrow from c.WireType (and the DECIMAL
// precision and scale), or returns false when the type has no exact mapping
// (see the package doc): GEOMETRY, VECTOR, a column of NULL type, or a type
// this driver version does not name.
func mapMyType(c *myColumn) bool {
	ts := func(zone string) *arrow.TimestampType {
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: zone}
	}
	switch c.WireType {
	case "TINYINT":
		c.class, c.Arrow = myInt8, arrow.PrimitiveTypes.Int8
	case "UNSIGNED TINYINT":
		c.class, c.Arrow = myUint8, arrow.PrimitiveTypes.Uint8
	case "SMALLINT":
		c.class, c.Arrow = myInt16, arrow.PrimitiveTypes.Int16
	case "UNSIGNED SMALLINT":
		c.class, c.Arrow = myUint16, arrow.PrimitiveTypes.Uint16
	case "MEDIUMINT", "INT":
		c.class, c.Arrow = myInt32, arrow.PrimitiveTypes.Int32
	case "UNSIGNED MEDIUMINT", "UNSIGNED INT":
		c.class, c.Arrow = myUint32, arrow.PrimitiveTypes.Uint32
	case "BIGINT":
		c.class, c.Arrow = myInt64, arrow.PrimitiveTypes.Int64
	case "UNSIGNED BIGINT":
		c.class, c.Arrow = myUint64, arrow.PrimitiveTypes.Uint64
	case "YEAR":
		c.class, c.Arrow = myYear, arrow.PrimitiveTypes.Int16
	case "DECIMAL":
		if c.Scale > sqlserver.MaxDecimalDigits || c.Scale < 0 || c.Precision < 1 {
			return false
		}
		c.class, c.Arrow = myDecimal, sqlserver.DecimalType(int32(c.Precision), int32(c.Scale))
	case "FLOAT":
		c.class, c.Arrow = myFloat32, arrow.PrimitiveTypes.Float32
	case "DOUBLE":
		c.class, c.Arrow = myFloat64, arrow.PrimitiveTypes.Float64
	case "CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET", "JSON":
		c.class, c.Arrow = myText, arrow.BinaryTypes.String
	case "BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB":
		c.class, c.Arrow = myBinary, arrow.BinaryTypes.Binary
	case "DATE":
		c.class, c.Arrow = myDate, arrow.FixedWidthTypes.Date32
	case "DATETIME":
		c.class, c.Arrow = myDateTime, ts("")
	case "TIMESTAMP":
		c.class, c.Arrow = myTimestamp, ts("UTC")
	case "TIME":
		c.class, c.Arrow = myTime, &arrow.DurationType{Unit: arrow.Microsecond}
	case "BIT":
		c.class, c.Arrow = myBit, arrow.PrimitiveTypes.Uint64
	default:
		return false
	}
	return true
}

// myMetaType is the type of a result column as its metadata describes it,
// for the evidence of a query's column: DECIMAL(18,2), DATETIME(3), ….
func myMetaType(c *myColumn) string {
	switch c.WireType {
	case "DECIMAL":
		return fmt.Sprintf("DECIMAL(%d,%d)", c.Precision, c.Scale)
	case "DATETIME", "TIMESTAMP", "TIME":
		if c.Precision > 0 {
			return fmt.Sprintf("%s(%d)", c.WireType, c.Precision)
		}
	}
	return c.WireType
}

// myAppender appends one non-NULL value, as the driver returns it from the
// text protocol (int64, uint64, float32, float64 or []byte valid until the
// next row), to its builder, and returns the bytes it counts towards the
// batch size. Errors wrap errMyValue and describe the value; the caller adds
// the row and column.
type myAppender func(v driver.Value) (int, error)

// zeroDates says what a zero date becomes: an error (the default) or NULL,
// counted per column.
type zeroDates struct {
	asNull bool
	counts []int64 // per column, when asNull
}

// myAppenderFor returns the appender of column i, writing into b, the
// builder of c.Arrow.
func myAppenderFor(c *myColumn, i int, b array.Builder, zd *zeroDates) myAppender {
	wrong := func(v driver.Value) error {
		return fmt.Errorf("%w: the driver returned %T for a %s column", errMyValue, v, c.WireType)
	}
	switch c.class {
	case myInt8, myInt16, myInt32, myInt64, myYear:
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		switch c.class {
		case myInt8:
			lo, hi = math.MinInt8, math.MaxInt8
		case myInt16, myYear:
			lo, hi = math.MinInt16, math.MaxInt16
		case myInt32:
			lo, hi = math.MinInt32, math.MaxInt32
		}
		appendInt := intAppender(b)
		return func(v driver.Value) (int, error) {
			n, ok := v.(int64)
			if !ok {
				return 0, wrong(v)
			}
			if n < lo || n > hi {
				return 0, fmt.Errorf("%w: %d is out of the range of %s", errMyValue, n, c.WireType)
			}
			appendInt(n)
			return 8, nil
		}
	case myUint8, myUint16, myUint32:
		hi := int64(math.MaxUint8)
		switch c.class {
		case myUint16:
			hi = math.MaxUint16
		case myUint32:
			hi = math.MaxUint32
		}
		appendUint := uintAppender(b)
		return func(v driver.Value) (int, error) {
			n, ok := v.(int64)
			if !ok {
				return 0, wrong(v)
			}
			if n < 0 || n > hi {
				return 0, fmt.Errorf("%w: %d is out of the range of %s", errMyValue, n, c.WireType)
			}
			appendUint(uint64(n))
			return 8, nil
		}
	case myUint64:
		bb := b.(*array.Uint64Builder)
		return func(v driver.Value) (int, error) {
			switch n := v.(type) {
			case uint64:
				bb.Append(n)
			case int64: // a NOT NULL column's small values may come signed
				if n < 0 {
					return 0, fmt.Errorf("%w: %d is out of the range of %s", errMyValue, n, c.WireType)
				}
				bb.Append(uint64(n))
			default:
				return 0, wrong(v)
			}
			return 8, nil
		}
	case myBit:
		bb := b.(*array.Uint64Builder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			if len(raw) > 8 {
				return 0, fmt.Errorf("%w: BIT value of %d bytes, at most 8 expected", errMyValue, len(raw))
			}
			var n uint64
			for _, x := range raw {
				n = n<<8 | uint64(x)
			}
			bb.Append(n)
			return 8, nil
		}
	case myFloat32:
		bb := b.(*array.Float32Builder)
		return func(v driver.Value) (int, error) {
			f, ok := v.(float32)
			if !ok {
				return 0, wrong(v)
			}
			bb.Append(f)
			return 4, nil
		}
	case myFloat64:
		bb := b.(*array.Float64Builder)
		return func(v driver.Value) (int, error) {
			f, ok := v.(float64)
			if !ok {
				return 0, wrong(v)
			}
			bb.Append(f)
			return 8, nil
		}
	case myDecimal:
		dt := c.Arrow.(*arrow.Decimal128Type)
		bb := b.(*array.Decimal128Builder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			n, err := parseMyDecimal(raw, dt.Precision, dt.Scale)
			if err != nil {
				return 0, err
			}
			bb.Append(n)
			return 16, nil
		}
	case myText:
		bb := b.(*array.StringBuilder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			if !utf8.Valid(raw) {
				return 0, fmt.Errorf("%w: %s is not UTF-8 text", errMyValue, myValueText(raw))
			}
			bb.BinaryBuilder.Append(raw)
			return len(raw), nil
		}
	case myBinary:
		bb := b.(*array.BinaryBuilder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			bb.Append(raw)
			return len(raw), nil
		}
	case myDate:
		bb := b.(*array.Date32Builder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			days, zero, err := parseMyDate(raw)
			switch {
			case zero && zd.asNull:
				zd.counts[i]++
				bb.AppendNull()
				return 0, nil
			case zero:
				return 0, fmt.Errorf("%w: %q (read it as NULL with the input option zero_dates: null)", ErrZeroDate, raw)
			case err != nil:
				return 0, err
			}
			bb.Append(arrow.Date32(days))
			return 4, nil
		}
	case myDateTime, myTimestamp:
		bb := b.(*array.TimestampBuilder)
		var memo dateMemo
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			us, zero, err := memo.parseDateTime(raw)
			switch {
			case zero && zd.asNull:
				zd.counts[i]++
				bb.AppendNull()
				return 0, nil
			case zero:
				return 0, fmt.Errorf("%w: %q (read it as NULL with the input option zero_dates: null)", ErrZeroDate, raw)
			case err != nil:
				return 0, err
			}
			bb.Append(arrow.Timestamp(us))
			return 8, nil
		}
	case myTime:
		bb := b.(*array.DurationBuilder)
		return func(v driver.Value) (int, error) {
			raw, ok := v.([]byte)
			if !ok {
				return 0, wrong(v)
			}
			us, err := parseMyTime(raw)
			if err != nil {
				return 0, err
			}
			bb.Append(arrow.Duration(us))
			return 8, nil
		}
	}
	panic(fmt.Sprintf("sources: no appender for MySQL type %s", c.WireType))
}

// intAppender appends an int64 known to be in range to a signed integer
// builder.
func intAppender(b array.Builder) func(int64) {
	switch bb := b.(type) {
	case *array.Int8Builder:
		return func(n int64) { bb.Append(int8(n)) }
	case *array.Int16Builder:
		return func(n int64) { bb.Append(int16(n)) }
	case *array.Int32Builder:
		return func(n int64) { bb.Append(int32(n)) }
	case *array.Int64Builder:
		return func(n int64) { bb.Append(n) }
	}
	panic(fmt.Sprintf("sources: %T is not a signed integer builder", b))
}

// uintAppender appends a uint64 known to be in range to an unsigned
// integer builder.
func uintAppender(b array.Builder) func(uint64) {
	switch bb := b.(type) {
	case *array.Uint8Builder:
		return func(n uint64) { bb.Append(uint8(n)) }
	case *array.Uint16Builder:
		return func(n uint64) { bb.Append(uint16(n)) }
	case *array.Uint32Builder:
		return func(n uint64) { bb.Append(uint32(n)) }
	case *array.Uint64Builder:
		return func(n uint64) { bb.Append(n) }
	}
	panic(fmt.Sprintf("sources: %T is not an unsigned integer builder", b))
}

// parseMyDecimal reads a DECIMAL as the server writes it in its text
// protocol ([-]digits[.digits], exactly the column's scale of fraction
// digits) into the unscaled decimal128 at scale. A value with more fraction
// digits than scale, or more than precision digits, is an error: nothing is
// rounded.
func parseMyDecimal(b []byte, precision, scale int32) (decimal128.Num, error) {
	if n, ok := parseMyDecimalFast(b, precision, scale); ok {
		return n, nil
	}
	return parseMyDecimalSlow(b, precision, scale)
}

// parseMyDecimalSlow is parseMyDecimal in 128 bits, for any input.
func parseMyDecimalSlow(b []byte, precision, scale int32) (decimal128.Num, error) {
	s := b
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	notDecimal := func() (decimal128.Num, error) {
		return decimal128.Num{}, fmt.Errorf("%w: %q is not a decimal number", errMyValue, b)
	}
	var hi, lo uint64        // the unscaled value, 128 bits
	intDigits, frac := 0, -1 // integer digits after leading zeros; fraction digits (-1: no point)
	seen := false
	for _, ch := range s {
		switch {
		case ch >= '0' && ch <= '9':
			seen = true
			if frac >= 0 {
				frac++
			} else if ch != '0' || intDigits > 0 {
				intDigits++
			}
			if intDigits+max(frac, 0) > sqlserver.MaxDecimalDigits { // beyond any column's digits: stop before 128 bits overflow
				return decimal128.Num{}, fmt.Errorf("%w: %s has more than %d digits (DECIMAL(%d,%d))", errMyValue, b, precision, precision, scale)
			}
			hi, lo = mul10add(hi, lo, uint64(ch-'0'))
		case ch == '.' && frac < 0:
			frac = 0
		default:
			return notDecimal()
		}
	}
	if !seen {
		return notDecimal()
	}
	frac = max(frac, 0)
	if frac > int(scale) {
		return decimal128.Num{}, fmt.Errorf("%w: %s has %d fraction digits, more than the column's scale %d", errMyValue, b, frac, scale)
	}
	if intDigits > int(precision-scale) {
		return decimal128.Num{}, fmt.Errorf("%w: %s has more than %d digits (DECIMAL(%d,%d))", errMyValue, b, precision, precision, scale)
	}
	for range int(scale) - frac {
		hi, lo = mul10add(hi, lo, 0)
	}
	n := decimal128.New(int64(hi), lo)
	if neg {
		n = n.Negate()
	}
	return n, nil
}

// parseMyDecimalFast reads the common case of parseMyDecimal — an optional
// minus, at most 18 digits, exactly scale fraction digits after a point
// (as the server writes a DECIMAL column) — in 64 bits; ok is false for
// anything else, which parseMyDecimal then reads (or refuses) the long way.
func parseMyDecimalFast(b []byte, precision, scale int32) (decimal128.Num, bool) {
	s := b
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 19 {
		return decimal128.Num{}, false
	}
	intLen := len(s)
	if scale > 0 {
		intLen = len(s) - int(scale) - 1
		if intLen < 1 || s[intLen] != '.' {
			return decimal128.Num{}, false
		}
	}
	var n uint64
	digits := 0
	for i, ch := range s {
		if i == intLen {
			continue // the point
		}
		d := ch - '0'
		if d > 9 {
			return decimal128.Num{}, false
		}
		if n != 0 || d != 0 || i > intLen {
			digits++
		}
		n = n*10 + uint64(d)
	}
	if intLen > 1 && s[0] == '0' || digits > 18 || intLen > int(precision-scale) && (intLen != 1 || s[0] != '0') {
		return decimal128.Num{}, false
	}
	v := int64(n)
	if neg {
		v = -v
	}
	return decimal128.FromI64(v), true
}

// mul10add returns the 128-bit (hi, lo)·10 + d; the caller bounds the
// number of digits (at most 38), so it cannot overflow.
func mul10add(hi, lo, d uint64) (uint64, uint64) {
	h1, l1 := bits.Mul64(lo, 10)
	hi = hi*10 + h1
	l2, carry := bits.Add64(l1, d, 0)
	return hi + carry, l2
}

// parseMyDate reads YYYY-MM-DD into days since 1970-01-01. zero is true
// for a zero date (a zero month or day: 0000-00-00, 2024-00-10); a date
// that is not in the proleptic Gregorian calendar (2024-02-30, which
// ALLOW_INVALID_DATES lets a server store) is an error.
func parseMyDate(b []byte) (days int64, zero bool, err error) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return 0, false, fmt.Errorf("%w: %q is not a date YYYY-MM-DD", errMyValue, b)
	}
	y, ok1 := atoiFixed(b[0:4])
	m, ok2 := atoiFixed(b[5:7])
	d, ok3 := atoiFixed(b[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, false, fmt.Errorf("%w: %q is not a date YYYY-MM-DD", errMyValue, b)
	}
	if m == 0 || d == 0 {
		return 0, true, nil
	}
	if m > 12 || d > daysIn(y, m) {
		return 0, false, fmt.Errorf("%w: %q is not a calendar date", errMyValue, b)
	}
	return daysFromCivil(y, m, d), false, nil
}

// parseMyDateTime reads YYYY-MM-DD HH:MM:SS[.ffffff] (a DATETIME, or a
// TIMESTAMP in a session whose time zone is +00:00) into microseconds since
// 1970-01-01 00:00:00 of the same wall clock. zero is as for parseMyDate.
func parseMyDateTime(b []byte) (us int64, zero bool, err error) {
	if len(b) < 19 || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return 0, false, fmt.Errorf("%w: %q is not a date and time YYYY-MM-DD HH:MM:SS", errMyValue, b)
	}
	days, zero, err := parseMyDate(b[:10])
	if zero || err != nil {
		return 0, zero, err
	}
	tod, err := parseMyTimeOfDay(b)
	if err != nil {
		return 0, false, err
	}
	return days*86_400_000_000 + tod, false, nil
}

// parseMyTimeOfDay reads the HH:MM:SS[.ffffff] after the date of a
// DATETIME's text (b, the whole value) into microseconds since midnight.
func parseMyTimeOfDay(b []byte) (int64, error) {
	if len(b) < 19 || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return 0, fmt.Errorf("%w: %q is not a date and time YYYY-MM-DD HH:MM:SS", errMyValue, b)
	}
	h, ok1 := atoiFixed(b[11:13])
	mi, ok2 := atoiFixed(b[14:16])
	s, ok3 := atoiFixed(b[17:19])
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || s > 59 {
		return 0, fmt.Errorf("%w: %q is not a date and time YYYY-MM-DD HH:MM:SS", errMyValue, b)
	}
	frac, err := fracMicros(b, b[19:])
	if err != nil {
		return 0, err
	}
	return ((int64(h)*60+int64(mi))*60+int64(s))*1_000_000 + frac, nil
}

// dateMemo remembers the last date a column's values started with: the
// rows of a table mostly come in runs of one day, so the calendar
// arithmetic is done once per run.
type dateMemo struct {
	date [10]byte
	days int64
	ok   bool
}

// parseDateTime is parseMyDateTime, reusing the date of the previous value
// when it is the same.
func (m *dateMemo) parseDateTime(b []byte) (int64, bool, error) {
	if !m.ok || len(b) < 19 || string(b[:10]) != string(m.date[:]) {
		us, zero, err := parseMyDateTime(b)
		if err == nil && !zero {
			copy(m.date[:], b[:10])
			m.days = floorDiv(us, 86_400_000_000)
			m.ok = true
		}
		return us, zero, err
	}
	tod, err := parseMyTimeOfDay(b)
	if err != nil {
		return 0, false, err
	}
	return m.days*86_400_000_000 + tod, false, nil
}

// floorDiv is a / b rounded towards minus infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// parseMyTime reads a TIME ([-]H…H:MM:SS[.ffffff], from -838:59:59 to
// 838:59:59: a duration, not a time of day) into microseconds.
func parseMyTime(b []byte) (int64, error) {
	s := b
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	c := 0
	for c < len(s) && s[c] != ':' {
		c++
	}
	bad := func() (int64, error) {
		return 0, fmt.Errorf("%w: %q is not a time [-]HH:MM:SS", errMyValue, b)
	}
	if c == 0 || c > 4 || len(s) < c+6 || s[c+3] != ':' {
		return bad()
	}
	var h int64
	for _, ch := range s[:c] {
		if ch < '0' || ch > '9' {
			return bad()
		}
		h = h*10 + int64(ch-'0')
	}
	mi, ok1 := atoiFixed(s[c+1 : c+3])
	sec, ok2 := atoiFixed(s[c+4 : c+6])
	if !ok1 || !ok2 || mi > 59 || sec > 59 {
		return bad()
	}
	frac, err := fracMicros(b, s[c+6:])
	if err != nil {
		return 0, err
	}
	us := ((h*60+int64(mi))*60+int64(sec))*1_000_000 + frac
	if neg {
		us = -us
	}
	return us, nil
}

// fracMicros reads an optional .f to .ffffff (whole is the value, for
// messages) into microseconds.
func fracMicros(whole, f []byte) (int64, error) {
	if len(f) == 0 {
		return 0, nil
	}
	if f[0] != '.' || len(f) < 2 || len(f) > 7 {
		return 0, fmt.Errorf("%w: %q: fraction of a second %q is not .f to .ffffff", errMyValue, whole, f)
	}
	var n int64
	for _, ch := range f[1:] {
		if ch < '0' || ch > '9' {
			return 0, fmt.Errorf("%w: %q: fraction of a second %q is not .f to .ffffff", errMyValue, whole, f)
		}
		n = n*10 + int64(ch-'0')
	}
	for range 7 - len(f) {
		n *= 10
	}
	return n, nil
}

// atoiFixed reads the decimal digits of b (no sign).
func atoiFixed(b []byte) (int, bool) {
	n := 0
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int(ch-'0')
	}
	return n, true
}

// daysIn is the number of days of month m of year y (proleptic Gregorian).
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms", days_from_civil).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// myValueText is a value as the message of an error shows it.
func myValueText(v driver.Value) string {
	switch x := v.(type) {
	case []byte:
		return sqlserver.QuoteCut(x)
	case nil:
		return "NULL"
	}
	return fmt.Sprint(v)
}
