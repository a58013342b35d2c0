package checks

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// TestPlainDigitsExact: for every set of text amounts, the digits
// measureDigits returns (through plain_digits.sql where it can) are those
// the capturing regular expressions of measure_digits.sql measure, and the
// sets plain_digits.sql cannot measure exactly fall back to it. The sets
// are where a shortcut goes wrong: a sign, leading zeros (the longest
// integer part being 0-padded), a bare point, white space, NULLs.
func TestPlainDigitsExact(t *testing.T) {
	ctx := context.Background()
	db := sourcetest.DB(t)
	for i, tc := range []struct {
		values []string // "NULL" is a NULL
		plain  bool     // plain_digits.sql alone is exact
	}{
		{[]string{"1.50", "-12.5", "+7"}, true},
		{[]string{"0.50", "0.05"}, true},
		{[]string{"0.5", "12"}, true},
		{[]string{"007.10", "12"}, true},   // 007 has at most 2 integer digits, as many as 12
		{[]string{"0007.10", "12"}, false}, // 0007: at most 3, more than 12's
		{[]string{"007.10", "123"}, true},
		{[]string{"-0009", "1"}, false},
		{[]string{"0012.5", "3"}, false},  // 12 has more integer digits than 3: only measure_digits.sql sees it
		{[]string{"000", "0.000"}, false}, // only 0-padded values: no bound
		{[]string{".5", "-.25", "5."}, true},
		{[]string{"NULL", "3.1"}, true},
		{[]string{"NULL"}, true},
		{[]string{" 1.50 ", "2"}, false}, // white space
		{[]string{"1.5\t", "22.125"}, false},
		{[]string{"123456789012345678901234.5", "1"}, true},
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			table := fmt.Sprintf("digits_%d", i)
			vals := make([]string, len(tc.values))
			for j, v := range tc.values {
				vals[j] = "(" + sqlfile.Literal(v) + ")"
				if v == "NULL" {
					vals[j] = "(NULL)"
				}
			}
			if err := db.Exec(ctx, fmt.Sprintf("CREATE TABLE %s AS SELECT CAST(x AS VARCHAR) AS x FROM (VALUES %s) AS t(x)", table, strings.Join(vals, ", "))); err != nil {
				t.Fatal(err)
			}
			data := struct{ Table, Col string }{table, "x"}
			_, _, ok, err := plainDigits(ctx, db, data)
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.plain {
				t.Errorf("plain_digits exact = %v, want %v", ok, tc.plain)
			}
			scale, intDigits, err := measureDigits(ctx, db, table, "x", "VARCHAR")
			if err != nil {
				t.Fatal(err)
			}
			cond, err := prepareSQL.SQL("not_decimal", data)
			if err != nil {
				t.Fatal(err)
			}
			_, r, err := db.StringsFile(ctx, prepareSQL, queries.PrepareMeasureDigits, struct{ Table, Col, Cond string }{table, "x", cond})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprintf("%d %d", scale, intDigits), *r[0][0]+" "+*r[0][1]; got != want {
				t.Errorf("%q: measureDigits gives scale and integer digits %s, measure_digits.sql %s", tc.values, got, want)
			}
		})
	}
}

// TestTextDecimalExact: rules/text_decimal.sql reads every text as the
// plain CAST to DECIMAL(38,s) does — the same value where it reads one
// (rounded alike past the scale, at 18 digits and beyond, signs, white
// space, exponents with mantissas past 18 digits, NULL), an error where it errors, NULL under TRY_CAST —
// and takes the narrow path only for a type wider than 18 digits.
func TestTextDecimalExact(t *testing.T) {
	ctx := context.Background()
	db := sourcetest.DB(t)
	values := []string{"1.235", "-1.235", "1.225", "-0.005", "0.004", "1.2349999999999999999999", "9999999999999999.99",
		"9999999999999999.995", "99999999999999999.99", "-99999999999999999.995", "123456789012345678901234.5", " 12.5 ",
		"+3", ".5", "5.", "1e2", "-0", "00012.10", "1_000", "NULL",
		// Exponents with long mantissas, which DuckDB's 64-bit parse truncates (a reviewer's finding).
		"0.000000000000000000077e21", "0.0000000068588498349e14", "4966.63592267067813444350e13", "1E3", "-2.5e-1",
		// Plain values with long fractions and many leading zeros.
		"0.00500000000000000000000001", "0.0049999999999999999999999999", "000000000000000000000000012.345",
		"-99999999999999999.994999999999999", "12345678901234567.89"}
	for _, typ := range []string{"DECIMAL(38,2)", "DECIMAL(38,0)", "DECIMAL(20,2)", "DECIMAL(18,2)"} {
		for _, v := range values {
			lit := sqlfile.Literal(v)
			if v == "NULL" {
				lit = "CAST(NULL AS VARCHAR)"
			}
			for _, cast := range []string{"CAST", "TRY_CAST"} {
				rule, err := textDecimal(lit, typ, cast)
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(rule, "coalesce") != (typ != "DECIMAL(18,2)") {
					t.Errorf("%s: narrow path %v: %s", typ, strings.Contains(rule, "coalesce"), rule)
				}
				q := fmt.Sprintf("SELECT coalesce(CAST(%s(%s AS %s) AS VARCHAR), 'NULL'), coalesce(CAST(%s AS VARCHAR), 'NULL')", cast, lit, typ, rule)
				_, rows, err := db.Strings(ctx, q)
				_, _, ruleErr := db.Strings(ctx, "SELECT "+rule)
				_, _, plainErr := db.Strings(ctx, fmt.Sprintf("SELECT %s(%s AS %s)", cast, lit, typ))
				if (ruleErr == nil) != (plainErr == nil) {
					t.Errorf("%s %s %q: the rule errs %v, the plain cast %v", cast, typ, v, ruleErr, plainErr)
					continue
				}
				if err != nil {
					continue // both refuse the value
				}
				if *rows[0][0] != *rows[0][1] {
					t.Errorf("%s %s %q: plain %s, rule %s", cast, typ, v, *rows[0][0], *rows[0][1])
				}
			}
		}
	}
}
