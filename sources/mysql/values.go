package mysql

import (
	"database/sql/driver"
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

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
