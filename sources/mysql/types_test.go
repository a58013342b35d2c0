package mysql

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// DECIMAL text from the server is read exactly, at the column's scale, or
// refused: nothing is rounded.
func TestParseMyDecimal(t *testing.T) {
	tests := []struct {
		in       string
		p, s     int32
		want     string // the decimal at scale s; "" for an error
		contains string
	}{
		{"-9999999999999999.99", 18, 2, "-9999999999999999.99", ""},
		{"0.00", 18, 2, "0.00", ""},
		{"-0.01", 18, 2, "-0.01", ""},
		{"1.5", 18, 2, "1.50", ""},
		{"12", 5, 0, "12", ""},
		{"0.00001", 5, 5, "0.00001", ""},
		{"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999", ""},
		{"-1234567890123456789012345678901234.5678", 38, 4, "-1234567890123456789012345678901234.5678", ""},
		{"000123.40", 5, 2, "123.40", ""},
		{"1.234", 18, 2, "", "3 fraction digits"},
		{"1234", 5, 2, "", "more than 5 digits"},
		{"123456789012345678901234567890123456789", 38, 0, "", "more than 38 digits"},
		{"1e5", 18, 2, "", "not a decimal number"},
		{"", 18, 2, "", "not a decimal number"},
		{"-", 18, 2, "", "not a decimal number"},
		{"1.2.3", 18, 2, "", "not a decimal number"},
	}
	for _, tt := range tests {
		n, err := parseMyDecimal([]byte(tt.in), tt.p, tt.s)
		if tt.want == "" {
			if err == nil || !errors.Is(err, errMyValue) || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("parseMyDecimal(%q, %d, %d) = %s, %v; want an error saying %q", tt.in, tt.p, tt.s, n.ToString(tt.s), err, tt.contains)
			}
			continue
		}
		if err != nil || n.ToString(tt.s) != tt.want {
			t.Errorf("parseMyDecimal(%q, %d, %d) = %s, %v; want %s", tt.in, tt.p, tt.s, n.ToString(tt.s), err, tt.want)
		}
	}
}

// Dates and date-times are read as the same wall clock Go's calendar gives;
// zero dates are told apart from dates that are no calendar date.
func TestParseMyDates(t *testing.T) {
	for _, s := range []string{"0001-01-01 00:00:00", "1000-01-01 00:00:00.000001", "1969-12-31 23:59:59.999999", "1970-01-01 00:00:00", "2024-02-29 12:34:56.5", "9999-12-31 23:59:59.999999"} {
		want, err := time.Parse("2006-01-02 15:04:05.999999", s)
		if err != nil {
			t.Fatal(err)
		}
		us, zero, err := parseMyDateTime([]byte(s))
		if err != nil || zero || us != want.UnixMicro() {
			t.Errorf("parseMyDateTime(%q) = %d, %v, %v; want %d", s, us, zero, err, want.UnixMicro())
		}
		days, zero, err := parseMyDate([]byte(s[:10]))
		if err != nil || zero || days*86400 != want.Truncate(24*time.Hour).Unix() {
			t.Errorf("parseMyDate(%q) = %d, %v, %v", s[:10], days, zero, err)
		}
	}
	for _, s := range []string{"0000-00-00", "2024-00-10", "2024-05-00", "0000-00-00 00:00:00", "2024-00-10 10:00:00.000"} {
		var zero bool
		var err error
		if len(s) == 10 {
			_, zero, err = parseMyDate([]byte(s))
		} else {
			_, zero, err = parseMyDateTime([]byte(s))
		}
		if !zero || err != nil {
			t.Errorf("%q: zero %v, err %v; want a zero date", s, zero, err)
		}
	}
	for _, s := range []string{"2024-02-30", "2023-02-29", "2024-13-01", "2024-1-01", "2024-01-01 24:00:00", "2024-01-01 10:00:00.1234567", "2024-01-01T10:00:00"} {
		var zero bool
		var err error
		if len(s) == 10 || len(s) == 9 {
			_, zero, err = parseMyDate([]byte(s))
		} else {
			_, zero, err = parseMyDateTime([]byte(s))
		}
		if zero || !errors.Is(err, errMyValue) {
			t.Errorf("%q: zero %v, err %v; want an error", s, zero, err)
		}
	}
}

// TIME is a duration from -838:59:59 to 838:59:59.
func TestParseMyTime(t *testing.T) {
	for s, want := range map[string]int64{
		"00:00:00":         0,
		"12:34:56.789012":  (12*3600+34*60+56)*1e6 + 789012,
		"-838:59:59":       -(838*3600 + 59*60 + 59) * 1e6,
		"838:59:59.000000": (838*3600 + 59*60 + 59) * 1e6,
		"-00:00:00.5":      -500000,
		"100:00:00.10":     100*3600*1e6 + 100000,
	} {
		if got, err := parseMyTime([]byte(s)); err != nil || got != want {
			t.Errorf("parseMyTime(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-", "12:34", "12:60:00", "1:2:3", "12:34:56.", "x2:00:00"} {
		if _, err := parseMyTime([]byte(s)); !errors.Is(err, errMyValue) {
			t.Errorf("parseMyTime(%q): err %v, want an error", s, err)
		}
	}
}

// The date memo gives what parseMyDateTime gives, across runs of one day,
// a change of day, a zero date and an error in between.
func TestDateMemo(t *testing.T) {
	var m dateMemo
	for _, s := range []string{"2026-11-27 00:00:31", "2026-11-27 23:59:59.999999", "2026-11-28 00:00:00", "0000-00-00 00:00:00",
		"2026-11-28 10:00:00.5", "2026-11-28 25:00:00", "2026-11-28 10:00:01", "1969-12-31 23:59:59", "1969-12-31 00:00:00.000001"} {
		wantUS, wantZero, wantErr := parseMyDateTime([]byte(s))
		us, zero, err := m.parseDateTime([]byte(s))
		if us != wantUS || zero != wantZero || (err == nil) != (wantErr == nil) {
			t.Errorf("%q: memo %d %v %v, want %d %v %v", s, us, zero, err, wantUS, wantZero, wantErr)
		}
	}
}

// The 64-bit fast path of parseMyDecimal agrees with the 128-bit one on
// every input it accepts, and declines what it cannot read.
func TestParseMyDecimalFastAgrees(t *testing.T) {
	for _, in := range []string{"-9999999999999999.99", "0.00", "915.85", "-0.01", "0.99999"} {
		if _, ok := parseMyDecimalFast([]byte(in), 18, int32(len(in)-strings.IndexByte(in, '.')-1)); !ok {
			t.Errorf("the fast path declines %q", in)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	digits := "0123456789"
	for range 200_000 {
		p := int32(1 + r.IntN(38))
		s := int32(r.IntN(int(p) + 1))
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteByte('-')
		}
		for range 1 + r.IntN(int(p-s)+2) {
			b.WriteByte(digits[r.IntN(10)])
		}
		if fr := r.IntN(int(s) + 2); fr > 0 || r.IntN(4) == 0 {
			b.WriteByte('.')
			for range fr {
				b.WriteByte(digits[r.IntN(10)])
			}
		}
		in := []byte(b.String())
		fast, ok := parseMyDecimalFast(in, p, s)
		slow, err := parseMyDecimalSlow(in, p, s)
		if ok && (err != nil || fast != slow) {
			t.Fatalf("%q DECIMAL(%d,%d): fast %s, slow %s (%v)", in, p, s, fast.ToString(s), slow.ToString(s), err)
		}
	}
}
