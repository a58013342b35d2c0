package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// The pre-scan's two ways of finding the fraction digits a value needs —
// min_scale (PostgreSQL 13 and later) and the digits of its text with the
// trailing zeros trimmed (older servers) — agree, value by value, and
// count no trailing zero (NaN and Infinity, refused when read, count
// none either way).
func TestPrescanScaleWithoutMinScale(t *testing.T) {
	conn := pgtest.Connect(t)
	values := []string{"0", "0.000", "1.000000000000000000000000000000000000", "123456789012", "-0.50", "-12.3400",
		"0.0000000001", "100", "1e3", "1.5e-7", "-0.000", "'NaN'", "'Infinity'", "NULL", "99999999999999999999999999.9999999999"}
	for _, v := range values {
		query := "SELECT " + v + "::numeric AS x"
		var got [2]*int32
		for i, minScale := range []bool{true, false} {
			q, err := prescanSQL(query, []pgColumn{{Name: "x", numeric: true}}, minScale)
			if err != nil {
				t.Fatal(err)
			}
			if minScale != strings.Contains(q, "min_scale(") {
				t.Fatalf("minScale %v: %s", minScale, q)
			}
			if err := conn.QueryRow(context.Background(), q).Scan(&got[i]); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		var want *int32
		if err := conn.QueryRow(context.Background(), fmt.Sprintf("SELECT scale(trim_scale(x)) FROM (%s) AS q WHERE x <> 'NaN' AND abs(x) <> 'Infinity'", query)).Scan(&want); err != nil && !strings.Contains(err.Error(), "no rows") {
			t.Fatal(err)
		}
		str := func(p *int32) string { // prescan reads NULL (NaN, Infinity) as 0
			if p == nil {
				return "0"
			}
			return fmt.Sprint(*p)
		}
		if str(got[0]) != str(got[1]) || (want != nil && str(got[1]) != str(want)) {
			t.Errorf("%s: min_scale %s, text %s, want %s", v, str(got[0]), str(got[1]), str(want))
		}
	}
	for _, c := range []struct {
		version string
		major   int
	}{{"15.18 (Debian 15.18-0+deb12u1)", 15}, {"9.6.24", 9}, {"13beta1", 13}, {"", 0}} {
		if got := pgMajor(c.version); got != c.major {
			t.Errorf("pgMajor(%q) = %d, want %d", c.version, got, c.major)
		}
	}
}
