package checks_test

import (
	"slices"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
)

// The copies of a repeated id are paired before they are compared (issue
// 30, item 3): every source copy was compared with every sink copy, so two
// identical inputs with an id on two rows (values 0 and 2) listed 0 vs 2
// and 2 vs 0 as value mismatches. Now identical copies pair off first
// (whatever their order); the copies left are paired in the order of their
// compared values; a copy left over on one side (the other has fewer) is
// listed against every copy of the other side only when it equals none of
// them. duplicate_ids reports the repetition itself.
func TestDuplicateCopiesPaired(t *testing.T) {
	for _, c := range []struct {
		name         string
		source, sink [][]any
		want         []string
	}{
		{"identical inputs (the issue's input)",
			[][]any{{"1", "b", "0"}, {"1", "b", "2"}}, [][]any{{"1", "b", "0"}, {"1", "b", "2"}}, nil},
		{"identical copies in another order",
			[][]any{{"1", "b", "0"}, {"1", "b", "2"}}, [][]any{{"1", "b", "2"}, {"1", "b", "0"}}, nil},
		{"NULL copies pair too",
			[][]any{{"1", nil, "0"}, {"1", "b", nil}}, [][]any{{"1", "b", nil}, {"1", nil, "0"}}, nil},
		{"one copy changed",
			[][]any{{"1", "b", "0"}, {"1", "b", "2"}}, [][]any{{"1", "b", "3"}, {"1", "b", "0"}}, []string{"1|v|2|3|1"}},
		{"both copies changed: paired in value order",
			[][]any{{"1", "b", "20"}, {"1", "b", "10"}}, [][]any{{"1", "b", "11"}, {"1", "b", "21"}}, []string{"1|v|10|11|1", "1|v|20|21|1"}},
		{"an extra sink copy equal to a source copy",
			[][]any{{"1", "b", "0"}, {"1", "b", "2"}}, [][]any{{"1", "b", "2"}, {"1", "b", "0"}, {"1", "b", "0"}}, nil},
		{"an extra sink copy equal to none (double-posted, altered)",
			[][]any{{"2", "b", "20.00"}}, [][]any{{"2", "b", "20.01"}, {"2", "b", "20.00"}}, []string{"2|v|20.00|20.01|0.01"}},
		{"an extra source copy equal to none, against every sink copy",
			[][]any{{"1", "b", "5"}, {"1", "b", "0"}, {"1", "c", "2"}}, [][]any{{"1", "b", "0"}, {"1", "c", "2"}},
			[]string{"1|k|b|c|NULL", "1|v|5|0|-5", "1|v|5|2|-3"}},
		{"single ids as before",
			[][]any{{"1", "b", "0"}, {"2", "b", "1"}}, [][]any{{"1", "b", "0"}, {"2", "c", "1"}}, []string{"2|k|b|c|NULL"}},
	} {
		for _, idCounts := range []bool{true, false} {
			run := func() []string {
				db := newDB(t)
				load(t, db, "source", "id VARCHAR, k VARCHAR, v VARCHAR", c.source...)
				load(t, db, "sink", "id VARCHAR, k VARCHAR, v VARCHAR", c.sink...)
				got, _ := valueMismatches(t, db, checks.Columns{ID: []string{"id"}, Measures: []string{"v"}})
				slices.Sort(got)
				return got
			}
			var got []string
			if idCounts {
				got = run()
			} else {
				checks.WithoutIDCounts(func() { got = run() })
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s (id_counts %v): mismatches %q, want %q", c.name, idCounts, got, c.want)
			}
		}
	}
}
