package checks

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// TestPercentOfExact: rules/percent_of.sql over rules/unscaled.sql gives 100 × part / whole
// rounded half away from zero to 6 places, as math/big computes it, for
// signs, ties, tiny and large values and scales 0, 2 and 10 — where a
// binary float (DuckDB's DECIMAL / DECIMAL) would round 1/3 or drop the
// last digits of a 30-digit sum; NULL when the whole is 0.
func TestPercentOfExact(t *testing.T) {
	ctx := context.Background()
	db := sourcetest.DB(t)
	var err error
	pairs := [][2]string{
		{"1", "3"}, {"-1", "3"}, {"2", "3"}, {"-2", "3"}, {"1", "-3"}, {"-1", "-3"},
		{"1", "200000000"}, {"-1", "200000000"}, // 0.0000005%: a tie at the 6th place, away from zero
		{"1", "250000000"}, {"-1", "250000000"}, // 0.0000004%: below the tie
		{"1", "16000000"}, {"-1", "16000000"}, // 0.00000625%
		{"0", "5"}, {"5", "0"}, {"0", "0"},
		{"123456789012345678901234567", "3"},      // 27 digits: DOUBLE keeps 15-17
		{"1", "99999999999999999999999999999999"}, // a tiny share of a 32-digit whole
		{"7", "7"}, {"-7", "7"}, {"50", "200"},
	}
	for _, scale := range []int{0, 2, 10} {
		typ := fmt.Sprintf("DECIMAL(38,%d)", scale)
		unit := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
		for _, pw := range pairs {
			part, ok1 := new(big.Int).SetString(pw[0], 10)
			whole, ok2 := new(big.Int).SetString(pw[1], 10)
			if !ok1 || !ok2 {
				t.Fatal(pw)
			}
			if len(pw[1])+scale > 38 || len(pw[0])+scale > 30 {
				continue // beyond the type, or the part beyond the rule's range
			}
			// The values are the integers in units of the scale.
			p := new(big.Rat).Mul(new(big.Rat).SetInt(part), unit)
			w := new(big.Rat).Mul(new(big.Rat).SetInt(whole), unit)
			var unscaled [2]string
			for i, v := range []*big.Rat{p, w} {
				if unscaled[i], err = rulesSQL.SQL(queries.RulesUnscaled, struct{ Value string }{fmt.Sprintf("CAST('%s' AS %s)", v.FloatString(scale), typ)}); err != nil {
					t.Fatal(err)
				}
			}
			rule, err := rulesSQL.SQL(queries.RulesPercentOf, struct{ Part, Whole string }{unscaled[0], unscaled[1]})
			if err != nil {
				t.Fatal(err)
			}
			_, rows, err := db.Strings(ctx, "SELECT CAST("+rule+" AS VARCHAR), typeof("+rule+")")
			if err != nil {
				t.Fatalf("%s / %s at %s: %v", pw[0], pw[1], typ, err)
			}
			want := "NULL"
			if whole.Sign() != 0 {
				want = roundHalfAway(new(big.Rat).Quo(new(big.Rat).Mul(p, big.NewRat(100, 1)), w), 6)
			}
			got := "NULL"
			if rows[0][0] != nil {
				got = *rows[0][0]
			}
			if got != want || *rows[0][1] != "DECIMAL(38,6)" {
				t.Errorf("%s %% of %s at %s: got %s (%s), want %s", p.FloatString(scale), w.FloatString(scale), typ, got, *rows[0][1], want)
			}
		}
	}
}

// roundHalfAway is r rounded half away from zero to places decimals, as
// text with exactly that many.
func roundHalfAway(r *big.Rat, places int) string {
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)
	x := new(big.Rat).Mul(r, new(big.Rat).SetInt(scale))
	num, den := new(big.Int).Abs(x.Num()), x.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(m, big.NewInt(2)).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if x.Sign() < 0 {
		q.Neg(q)
	}
	return new(big.Rat).SetFrac(q, scale).FloatString(places)
}
