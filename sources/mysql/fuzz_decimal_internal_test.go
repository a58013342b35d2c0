package mysql

import (
	"errors"
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources/internal/sqlserver"
)

// FuzzDecimal reads arbitrary text as a DECIMAL(p,s) value of the
// MySQL text protocol, for any precision 1…38 and scale 0…p, and checks
// parseMyDecimal against myDecimalOracle, an exact reading of the text with
// math/big.Rat: the parser succeeds exactly when the oracle finds a value
// the column holds, and then with the oracle's value; otherwise it fails
// wrapping errMyValue. Its 64-bit fast path, whenever it accepts the text,
// must agree with the 128-bit one.
//
// Seeds: testdata/fuzz/FuzzDecimal.
//
//	go test -tags duckdb_arrow -run '^$' -fuzz '^FuzzDecimal$' -fuzztime 60s ./sources/mysql/
func FuzzDecimal(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string, precision, scale uint8) {
		p := int32(precision%sqlserver.MaxDecimalDigits) + 1
		s := int32(scale) % (p + 1)
		b := []byte(text)
		got, err := parseMyDecimal(b, p, s)
		want, why := myDecimalOracle(text, p, s)
		switch {
		case why != "" && err == nil:
			t.Fatalf("parseMyDecimal(%q, %d, %d) = %s, want an error: %s", text, p, s, got.BigInt(), why)
		case why == "" && err != nil:
			t.Fatalf("parseMyDecimal(%q, %d, %d): %v, want unscaled %s", text, p, s, err, want)
		case err != nil && !errors.Is(err, errMyValue):
			t.Fatalf("parseMyDecimal(%q, %d, %d): %v does not wrap errMyValue", text, p, s, err)
		case err == nil && got.BigInt().Cmp(want) != 0:
			t.Fatalf("parseMyDecimal(%q, %d, %d) = %s, want unscaled %s", text, p, s, got.BigInt(), want)
		}
		if fast, ok := parseMyDecimalFast(b, p, s); ok {
			slow, err := parseMyDecimalSlow(b, p, s)
			if err != nil || slow != fast {
				t.Fatalf("parseMyDecimal(%q, %d, %d): fast path %s, slow path %s (%v)", text, p, s, fast.BigInt(), slow.BigInt(), err)
			}
		}
	})
}

// myDecimalText is the text a DECIMAL is read from: an optional sign, then
// digits with at most one point and at least one digit.
var myDecimalText = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$`)

// myDecimalOracle is what a DECIMAL(p,s) column reads from text: the value
// × 10^s, or why it cannot (a non-empty reason). parseMyDecimal's
// contract: nothing is rounded, so text with more fraction digits than s
// (trailing zeros too, as written) or a value of p-s or more integer
// digits is refused.
func myDecimalOracle(text string, p, s int32) (*big.Int, string) {
	if !myDecimalText.MatchString(text) {
		return nil, "not a decimal number"
	}
	if i := strings.IndexByte(text, '.'); i >= 0 && len(text)-i-1 > int(s) {
		return nil, "more fraction digits than the scale"
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return nil, "big.Rat cannot read it" // the pattern above admits only what it reads
	}
	u := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)), nil)))
	if !u.IsInt() {
		return nil, "a digit beyond the scale"
	}
	n := u.Num()
	if new(big.Int).Abs(n).Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)) >= 0 {
		return nil, "more than p digits"
	}
	return n, ""
}
