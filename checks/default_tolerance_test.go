package checks_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// tolerance: {default: X} (issue 31, item 5) applies X to every compared
// column not named whose comparison takes a tolerance of X's kind; a named
// tolerance wins; every other compared column is compared exactly, listed
// with the reason, never refused. Each column's values are chosen so that
// exact comparison and the tolerance give different verdicts.
func TestDefaultTolerance(t *testing.T) {
	table := "id VARCHAR, amount VARCHAR, fee DECIMAL(18,3), name VARCHAR, settled TIMESTAMPTZ, ratio DOUBLE"
	source := [][]any{
		{"1", "100.004", "5.000", "a", "2024-03-01 10:00:00+00", 0.5},
		{"2", "100.00", "5.000", "b", "2024-03-01 10:00:00+00", 0.5},
	}
	sink := [][]any{
		{"1", "100.00", "5.050", "a", "2024-03-01 10:00:02+00", 0.5},  // all within a tolerance
		{"2", "100.02", "5.000", "B", "2024-03-01 10:00:00+00", 0.25}, // beyond 0.01; text and float differ
	}
	for _, tc := range []struct {
		name string
		tol  map[string]string
		// want: value_mismatches rows id|column|within (false: an
		// exception), and the tolerance or reason of every compared column.
		want     []string
		compared string
	}{
		{"an amount by default, fee by its own", map[string]string{"default": "0.01", "fee": "0.1"},
			[]string{"1|amount|true", "1|fee|true", "1|settled|false", "2|amount|false", "2|name|false", "2|ratio|false"},
			"amount 0.01 default; fee 0.1; name exact: default tolerance 0.01 does not apply to VARCHAR; " +
				"settled exact: default tolerance 0.01 does not apply to TIMESTAMP WITH TIME ZONE; ratio exact: default tolerance 0.01 does not apply to DOUBLE"},
		{"a percentage applies to numbers", map[string]string{"default": "1%"},
			[]string{"1|amount|true", "1|fee|true", "1|settled|false", "2|amount|true", "2|name|false", "2|ratio|false"},
			"amount 1% default; fee 1% default; name exact: default tolerance 1% does not apply to VARCHAR; " +
				"settled exact: default tolerance 1% does not apply to TIMESTAMP WITH TIME ZONE; ratio exact: default tolerance 1% does not apply to DOUBLE"},
		{"a duration applies to timestamps", map[string]string{"default": "2s"},
			[]string{"1|amount|false", "1|fee|false", "1|settled|true", "2|amount|false", "2|name|false", "2|ratio|false"},
			"amount exact: default tolerance 2s does not apply to DECIMAL(18,3); fee exact: default tolerance 2s does not apply to DECIMAL(18,3); " +
				"name exact: default tolerance 2s does not apply to VARCHAR; settled 2s default; ratio exact: default tolerance 2s does not apply to DOUBLE"},
		{"no tolerance: every difference an exception", nil,
			[]string{"1|amount|false", "1|fee|false", "1|settled|false", "2|amount|false", "2|name|false", "2|ratio|false"},
			"amount exact; fee exact; name exact; settled exact; ratio exact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := newDB(t)
			load(t, db, "source", table, source...)
			load(t, db, "sink", table, sink...)
			tols := map[string]checks.Tolerance{}
			for k, v := range tc.tol {
				tols[k] = tolerance(t, v)
			}
			ctx := context.Background()
			p, notes, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}, Tolerance: tols})
			if err != nil {
				t.Fatal(err)
			}
			var compared []string
			for _, c := range p.Compared {
				switch {
				case c.Tolerance != nil && c.ToleranceDefault:
					compared = append(compared, c.Name+" "+c.Tolerance.Text+" default")
				case c.Tolerance != nil:
					compared = append(compared, c.Name+" "+c.Tolerance.Text)
				case c.NoTolerance != "":
					compared = append(compared, c.Name+" exact: "+c.NoTolerance)
				default:
					compared = append(compared, c.Name+" exact")
				}
			}
			if got := strings.Join(compared, "; "); got != tc.compared {
				t.Errorf("compared:\n got %s\nwant %s", got, tc.compared)
			}
			outs, err := checks.Run(ctx, db, []*checks.Check{find(t, builtin(t), "value_mismatches")}, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			within := "'false'" // no tolerance at all: no such column
			if slices.ContainsFunc(outs[0].Columns, func(c checks.Column) bool { return c.Role == checks.RoleWithin }) {
				within = "CAST(within_tolerance AS VARCHAR)"
			}
			got := query(t, db, "SELECT id || '|' || \"column\" || '|' || "+within+" FROM "+duck.Ident(outs[0].Table)+" ORDER BY 1")
			if !slices.Equal(got, tc.want) {
				t.Errorf("value_mismatches:\n got %q\nwant %q", got, tc.want)
			}
			// The notes list each column's tolerance, or why it has none.
			note := strings.Join(notes, "\n")
			for _, c := range p.Compared {
				if c.NoTolerance != "" && !strings.Contains(note, c.Name+" ("+string(c.Method)+", exactly: "+c.NoTolerance+")") {
					t.Errorf("notes do not say %s is compared exactly and why:\n%s", c.Name, note)
				}
			}
		})
	}
}

// balance_tolerance: {default: X} applies to every measure not named: a
// sum off by 0.004 is within it and not an exception; without it, it is.
func TestDefaultBalanceTolerance(t *testing.T) {
	for _, tc := range []struct {
		tol        map[string]string
		exceptions int64
		within     int64
	}{
		{map[string]string{"default": "0.01"}, 0, 1}, // amount off by -0.004, fee by 0.005: both within
		{map[string]string{"default": "0.01", "fee": "0.001"}, 1, 0},
		{nil, 1, 0},
	} {
		db := newDB(t)
		load(t, db, "source", "id VARCHAR, amount VARCHAR, fee VARCHAR", []any{"1", "100.004", "1.000"})
		load(t, db, "sink", "id VARCHAR, amount VARCHAR, fee VARCHAR", []any{"1", "100.00", "1.005"})
		tols := map[string]checks.Tolerance{}
		for k, v := range tc.tol {
			tols[k] = tolerance(t, v)
		}
		ctx := context.Background()
		p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id"}, Measures: []string{"amount", "fee"}, BalanceTolerance: tols})
		if err != nil {
			t.Fatal(err)
		}
		outs, err := checks.Run(ctx, db, []*checks.Check{find(t, builtin(t), "sum_balance")}, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		o := outs[0]
		var within int64
		if o.WithinTolerance != nil {
			within = *o.WithinTolerance
		}
		if o.Exceptions != tc.exceptions || within != tc.within {
			t.Errorf("balance_tolerance %v: %d rows, %d within tolerance; want %d exceptions: %q", tc.tol, o.Exceptions, within, tc.exceptions,
				query(t, db, "SELECT * FROM "+duck.Ident(o.Table)))
		}
	}
}

// A column named default in both inputs makes tolerance: {default: …}
// ambiguous: refused, naming it. In one input only it is never compared,
// and default: is the default.
func TestDefaultToleranceAmbiguous(t *testing.T) {
	c := checks.Columns{ID: []string{"id"}, Tolerance: map[string]checks.Tolerance{"default": tolerance(t, "0.01")}}
	_, err := checks.PlanComparison(c, cols("id", "VARCHAR", "default", "DECIMAL(18,2)"), cols("id", "VARCHAR", "default", "DECIMAL(18,2)"))
	if !errors.Is(err, checks.ErrColumn) || !strings.Contains(err.Error(), "tolerance.default is ambiguous: both inputs have a column named default") {
		t.Errorf("a column named default in both inputs: %v", err)
	}
	p, err := checks.PlanComparison(c, cols("id", "VARCHAR", "default", "DECIMAL(18,2)", "n", "BIGINT"), cols("id", "VARCHAR", "n", "BIGINT"))
	if err != nil || len(p.Compared) != 1 || !p.Compared[0].ToleranceDefault {
		t.Errorf("a column named default in the source only: %+v, %v", p, err)
	}
	// Named explicitly, a tolerance of the wrong kind is still refused:
	// only the default passes over the columns it does not fit.
	c.Tolerance["name"] = tolerance(t, "0.01")
	if _, err := checks.PlanComparison(c, cols("id", "VARCHAR", "name", "VARCHAR"), cols("id", "VARCHAR", "name", "VARCHAR")); err == nil || !strings.Contains(err.Error(), "tolerance.name: the column is text in both inputs") {
		t.Errorf("a named tolerance of text: %v", err)
	}
}

// The spec refuses default: where the spec itself makes it ambiguous, and
// a duration as a default balance tolerance.
func TestDefaultToleranceSpec(t *testing.T) {
	base := "source: a.csv\nsink: b.csv\nout: e\nid: [id]\n"
	for _, tc := range []struct{ yaml, want string }{
		{"compare: [default]\ntolerance: {default: 0.01}\n", "tolerance.default is ambiguous: compare: names a column default"},
		{"measures: [default]\nbalance_tolerance: {default: 0.01}\n", "balance_tolerance.default is ambiguous: measures: names a column default"},
		{"measures: [amount]\nbalance_tolerance: {default: 2s}\n", "balance_tolerance.default: 2s is a duration"},
		{"ignore: [x]\ntolerance: {default: 0.01}\nmeasures: [amount]\nbalance_tolerance: {default: 1.00}\n", ""},
	} {
		s, err := spec.Parse([]byte(base + tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.yaml, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
