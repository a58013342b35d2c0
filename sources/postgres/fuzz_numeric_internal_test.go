package postgres

import (
	"encoding/binary"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

// FuzzNumeric reads arbitrary bytes as PostgreSQL's binary numeric
// (int16 ndigits, int16 weight, uint16 sign, uint16 dscale, then ndigits
// base-10000 digits; PostgreSQL's numeric_send) into a numeric(p,s) column
// of any precision 1…38 and scale 0…p, and checks decodeNumeric against
// pgNumericOracle, an independent reading of the same bytes in math/big:
// the decoder succeeds exactly when the oracle finds a value the column
// holds, and then with the oracle's value; otherwise it fails wrapping
// errPGValue. For every well-formed value whose digits stop within its
// display scale, numericString (the value in messages) must read back, as
// a big.Rat, as that value with dscale fraction digits.
//
// A "digit" above 9999 is no base-10000 digit: PostgreSQL's numeric_recv
// refuses it, and a server never sends one; decodeNumeric must refuse it
// too (found by this target: it read 0001 0000 0000 0000 2710 by place
// value as 10000; seed digit-10000).
//
// Seeds: testdata/fuzz/FuzzNumeric.
//
//	go test -tags duckdb_arrow -run '^$' -fuzz '^FuzzNumeric$' -fuzztime 60s ./sources/postgres/
func FuzzNumeric(f *testing.F) {
	f.Fuzz(func(t *testing.T, v []byte, precision, scale uint8) {
		p := int32(precision%sqlserver.MaxDecimalDigits) + 1
		s := int32(scale) % (p + 1)
		got, err := decodeNumeric(v, p, s)
		want, why := pgNumericOracle(v, p, s)
		switch {
		case why != "" && err == nil:
			t.Fatalf("decodeNumeric(%x, %d, %d) = %s, want an error: %s", v, p, s, got.BigInt(), why)
		case why == "" && err != nil:
			t.Fatalf("decodeNumeric(%x, %d, %d): %v, want unscaled %s", v, p, s, err, want)
		case err != nil && !errors.Is(err, errPGValue):
			t.Fatalf("decodeNumeric(%x, %d, %d): %v does not wrap errPGValue", v, p, s, err)
		case err == nil && got.BigInt().Cmp(want) != 0:
			t.Fatalf("decodeNumeric(%x, %d, %d) = %s, want unscaled %s", v, p, s, got.BigInt(), want)
		}

		// numericString round trip, for values a server can send whose
		// text is of a size to read back.
		digits, exp, dscale, bigDigit, ok := pgNumericValue(v)
		if !ok || bigDigit || dscale > 1000 || exp > 1000 || exp < -1000 {
			return
		}
		r := new(big.Rat).SetInt(digits)
		if exp >= 0 {
			r.Mul(r, new(big.Rat).SetInt(pow10(exp)))
		} else {
			r.Quo(r, new(big.Rat).SetInt(pow10(-exp)))
		}
		if !new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(dscale))).IsInt() {
			return // digits beyond the display scale: PostgreSQL never sends them
		}
		text := numericString(v)
		back, ok := new(big.Rat).SetString(text)
		if !ok || back.Cmp(r) != 0 {
			t.Fatalf("numericString(%x) = %q, want the value %s", v, text, r.FloatString(dscale))
		}
		frac := 0
		if i := strings.IndexByte(text, '.'); i >= 0 {
			frac = len(text) - i - 1
		}
		if frac != dscale {
			t.Fatalf("numericString(%x) = %q: %d fraction digits, want dscale %d", v, text, frac, dscale)
		}
	})
}

// pgNumericOracle is what a numeric(p,s) column reads from v: the value ×
// 10^s, or why it cannot (a non-empty reason). It follows PostgreSQL's
// numeric_recv for what is a number (a sign word of 0x0000 or 0x4000, one
// int16 per digit, as many as ndigits says, each digit 0…9999) and
// decodeNumeric's contract for what the column holds (no non-zero digit
// beyond s: the trailing zeros the display scale counts are dropped; fewer
// than 10^p units).
func pgNumericOracle(v []byte, p, s int32) (n *big.Int, why string) {
	digits, exp, _, bigDigit, ok := pgNumericValue(v)
	switch {
	case !ok:
		return nil, "not a finite well-formed numeric"
	case bigDigit:
		return nil, "a digit above 9999"
	}
	// value × 10^s = digits × 10^(exp+s)
	e := exp + int(s)
	n = new(big.Int).Set(digits)
	switch {
	case n.Sign() == 0:
		return n, ""
	case e > int(p):
		return nil, "more than p digits" // at least 10^e > 10^p units
	case e >= 0:
		n.Mul(n, pow10(e))
	case -e > len(new(big.Int).Abs(n).String()):
		return nil, "a digit beyond the scale" // a non-zero n has fewer than -e trailing zeros
	default:
		var rem big.Int
		n.QuoRem(n, pow10(-e), &rem)
		if rem.Sign() != 0 {
			return nil, "a digit beyond the scale"
		}
	}
	if new(big.Int).Abs(n).Cmp(pow10(int(p))) >= 0 {
		return nil, "more than p digits"
	}
	return n, ""
}

// pgNumericValue reads v as a finite binary numeric: its value is digits ×
// 10^exp (digits signed: the base-10000 digits read as one integer), its
// display scale dscale; ok is false for anything else (too short, NaN or
// an infinity or an unknown sign word, a length that does not match
// ndigits). bigDigit says a digit is above 9999 (read by place value).
func pgNumericValue(v []byte) (digits *big.Int, exp, dscale int, bigDigit, ok bool) {
	if len(v) < 8 {
		return nil, 0, 0, false, false
	}
	ndigits := int(int16(binary.BigEndian.Uint16(v[0:])))
	weight := int(int16(binary.BigEndian.Uint16(v[2:])))
	sign := binary.BigEndian.Uint16(v[4:])
	dscale = int(binary.BigEndian.Uint16(v[6:]))
	if sign != 0x0000 && sign != 0x4000 || ndigits < 0 || len(v) != 8+2*ndigits {
		return nil, 0, 0, false, false
	}
	digits = new(big.Int)
	base := big.NewInt(10000)
	for i := range ndigits {
		d := int64(binary.BigEndian.Uint16(v[8+2*i:]))
		bigDigit = bigDigit || d > 9999
		digits.Mul(digits, base)
		digits.Add(digits, big.NewInt(d))
	}
	if sign == 0x4000 {
		digits.Neg(digits)
	}
	// the last digit stands for 10000^(weight-ndigits+1)
	return digits, 4 * (weight - ndigits + 1), dscale, bigDigit, true
}

// pow10 is 10^e for e >= 0.
func pow10(e int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(e)), nil)
}
