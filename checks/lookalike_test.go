package checks_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/fault"
)

// A source column and a sink column whose names differ only in case, in
// white space around them or in invisible characters are refused (exit 2)
// before any row is read, naming both and the rename: or ignore: line that
// resolves it (issue 30, item 10: source b against sink B, a value changed
// in it, passed with a WARNING). A column in one input only and near no
// other name is listed as uncompared, as before; with compare: the columns
// not listed are left out by the spec, so a look-alike pair is not refused
// there.
func TestLookAlikeColumnsRefused(t *testing.T) {
	for _, c := range []struct {
		name        string
		source      []string
		sink        []string
		want, wants string
	}{
		{"case", []string{"id", "b"}, []string{"id", "B"},
			"column b of the source and B of the sink differ only in case", "to compare them, rename both to one new name (source: {rename: {b: B_value}}, sink: {rename: {B: B_value}}), or to leave both uncompared, ignore: [b, B]"},
		{"white space", []string{"id", " amount"}, []string{"id", "amount"},
			`column " amount" of the source and "amount" of the sink differ only in white space around the name`, `to compare them, rename: source: {rename: {" amount": amount}}, or to leave both uncompared, ignore: [" amount", amount]`},
		{"white space and case", []string{"id", "Amount "}, []string{"id", "amount"},
			`column "Amount " of the source and "amount" of the sink differ only in white space around the name and in case`, `ignore: ["Amount ", amount]`},
		{"zero-width space", []string{"id", "status"}, []string{"id", "status\u200b"},
			`column "status" of the source and "status\u200b" of the sink look alike but differ in invisible characters`, `to compare them, rename: sink: {rename: {"status\u200b": "status"}}, or to leave both uncompared, ignore: [status, "status\u200b"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var src, sink []string
			for _, n := range c.source {
				src = append(src, n, "VARCHAR")
			}
			for _, n := range c.sink {
				sink = append(sink, n, "VARCHAR")
			}
			_, err := checks.PlanComparison(checks.Columns{ID: []string{"id"}}, cols(src...), cols(sink...))
			if !errors.Is(err, checks.ErrColumn) || fault.Of(err) != fault.Usage || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.wants) {
				t.Errorf("err = %v\nwant checks.ErrColumn (exit 2) with %q and %q", err, c.want, c.wants)
			}
			// The ignore: it names resolves it: both left uncompared.
			p, err := checks.PlanComparison(checks.Columns{ID: []string{"id"}, Ignore: []string{c.source[1], c.sink[1]}}, cols(src...), cols(sink...))
			if err != nil {
				t.Fatalf("with ignore: %v", err)
			}
			if len(p.Uncompared) != 3 || p.Uncompared[1].Reason != checks.ReasonIgnored || p.Uncompared[2].Reason != checks.ReasonIgnored {
				t.Errorf("with ignore: uncompared %+v, want both columns left out by ignore:", p.Uncompared)
			}
			// With compare:, a column not listed is left out by the spec.
			if _, err := checks.PlanComparison(checks.Columns{ID: []string{"id"}, Compare: []string{"x"}}, cols(append(src, "x", "VARCHAR")...), cols(append(sink, "x", "VARCHAR")...)); err != nil {
				t.Errorf("with compare: %v", err)
			}
		})
	}
	// A column of one input near no other name stays uncompared, no error;
	// every look-alike pair is named at once.
	p, err := checks.PlanComparison(checks.Columns{ID: []string{"id"}}, cols("id", "VARCHAR", "note", "VARCHAR"), cols("id", "VARCHAR", "posted_at", "TIMESTAMP"))
	if err != nil || len(p.Uncompared) != 3 || p.Uncompared[1].Reason != checks.ReasonOnlySource || p.Uncompared[2].Reason != checks.ReasonOnlySink {
		t.Errorf("columns of one input: %+v, %v", p, err)
	}
	_, err = checks.PlanComparison(checks.Columns{ID: []string{"id"}}, cols("id", "VARCHAR", "a", "VARCHAR", "b", "VARCHAR"), cols("id", "VARCHAR", "A", "VARCHAR", "B", "VARCHAR"))
	if err == nil || !strings.Contains(err.Error(), "column a of the source and A of the sink") || !strings.Contains(err.Error(), "column b of the source and B of the sink") {
		t.Errorf("two pairs: err = %v, want both named", err)
	}
}
