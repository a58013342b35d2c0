package checks_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
)

// Postings without a posting id (pgbench_history: aid, tid, delta, mtime)
// against balances (issue 31, item 3). A posting doubled in the postings
// shows in sum_balance only as an account off by its delta; a naive look
// at the balances, or a distinct count, cannot say which row it is.
// duplicate_postings lists the two rows. Rows that differ only in a column
// outside duplicates: (memo) are the same posting; two NULLs in the same
// column are equal (aid 2), NULL and a value are not (aid 3), and an empty
// text is NULL, as CSV cannot tell them apart (aid 4). The delta is a
// measure, an exact decimal: 10.0 and 10.00 are one value.
func TestDuplicatePostingsWithoutID(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "aid VARCHAR, tid VARCHAR, delta VARCHAR, mtime VARCHAR, memo VARCHAR",
		[]any{"1", "7", "10.0", "2024-03-01 10:00:00", "first"},
		[]any{"1", "7", "10.00", "2024-03-01 10:00:00", "retry"}, // the doubled posting
		[]any{"1", "7", "-3", "2024-03-01 10:00:01", nil},
		[]any{"2", nil, "5", "2024-03-01 11:00:00", nil},
		[]any{"2", nil, "5", "2024-03-01 11:00:00", nil},
		[]any{"3", "1", "7", "2024-03-01 12:00:00", nil},
		[]any{"3", nil, "7", "2024-03-01 12:00:00", nil},
		[]any{"4", "", "1", "2024-03-01 13:00:00", nil},
		[]any{"4", nil, "1", "2024-03-01 13:00:00", nil})
	// The balances: account 1 is what its postings should sum to (7.00);
	// 2, 3 and 4 hold what their rows sum to, repeats included.
	load(t, db, "sink", "aid VARCHAR, delta VARCHAR",
		[]any{"1", "7.00"}, []any{"2", "10"}, []any{"3", "14"}, []any{"4", "2"})
	_, outs, notes := runChecks(t, db, checks.Columns{Measures: []string{"delta"}, GroupBy: []string{"aid"},
		Duplicates: []string{"aid", "tid", "delta", "mtime"}}, "sum_balance", "duplicate_postings")

	sum := outs["sum_balance"]
	if got := query(t, db, "SELECT aid, difference_delta FROM "+duck.Ident(sum.Table)); !slices.Equal(got, []string{"1|-10.00"}) {
		t.Errorf("sum_balance %q, want account 1 off by the doubled posting's -10.00", got)
	}
	dp := outs["duplicate_postings"]
	if dp.Status != checks.Fail {
		t.Fatalf("duplicate_postings %s (%s)", dp.Status, dp.SkipReason)
	}
	got := query(t, db, "SELECT side, aid, coalesce(tid, 'NULL'), delta, mtime, copies, locations FROM "+duck.Ident(dp.Table)+" ORDER BY aid")
	want := []string{
		"source|1|7|10.00|2024-03-01 10:00:00|2|source.csv:2;source.csv:3",
		"source|2|NULL|5.00|2024-03-01 11:00:00|2|source.csv:5;source.csv:6",
		"source|4|NULL|1.00|2024-03-01 13:00:00|2|source.csv:9;source.csv:10",
	}
	if !slices.Equal(got, want) {
		t.Errorf("duplicate_postings:\n got %q\nwant %q", got, want)
	}
	// The sink (balances: no tid, no mtime) is not checked, and a note says so.
	if want := `duplicates: [aid, tid, delta, mtime] checked for repeated postings in the source only: the sink lacks "tid", "mtime"`; !strings.Contains(notes, want) {
		t.Errorf("notes lack %q:\n%s", want, notes)
	}
	// The duplicates columns are the exception's key (the run history's).
	var roles []string
	for _, c := range dp.Columns {
		roles = append(roles, c.Name+"="+c.Role)
	}
	if got := strings.Join(roles, ","); got != "aid=group,tid=key,delta=key,mtime=key,side=,copies=,locations=location" {
		t.Errorf("roles %s", got)
	}
}

// With an id, on both inputs, whose types may differ: each input is
// checked on its own, values compared as that input types them: a text
// delta 10.0 and 10.00 are two texts (not a measure, no types:), a DECIMAL
// holds them as one value; INTERVAL '1 month' is not INTERVAL '30 days'
// (DuckDB's GROUP BY would merge them). A column the two inputs type
// differently is written as text.
func TestDuplicatePostingsTyped(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, delta VARCHAR, span INTERVAL",
		[]any{"1", "10.0", "1 month"}, []any{"2", "10.00", "1 month"}, []any{"3", "10.0", "30 days"},
		[]any{"4", "10.0", "1 month"})
	load(t, db, "sink", "id VARCHAR, delta DECIMAL(18,2), span INTERVAL",
		[]any{"1", "10.0", "1 month"}, []any{"2", "10.00", "1 month"}, []any{"3", "10.00", "30 days"},
		[]any{"4", "10.0", "1 month"})
	_, outs, notes := runChecks(t, db, checks.Columns{ID: []string{"id"}, Ignore: []string{"delta"}, Duplicates: []string{"delta", "span"}},
		"duplicate_ids", "duplicate_postings")
	if outs["duplicate_ids"].Exceptions != 0 {
		t.Errorf("duplicate_ids %d: no id repeats", outs["duplicate_ids"].Exceptions)
	}
	dp := outs["duplicate_postings"]
	got := query(t, db, "SELECT side, delta, typeof(delta), CAST(span AS VARCHAR), copies, locations FROM "+duck.Ident(dp.Table)+" ORDER BY side")
	want := []string{
		"sink|10.00|VARCHAR|1 month|3|sink.csv:2;sink.csv:3;sink.csv:5",
		"source|10.0|VARCHAR|1 month|2|source.csv:2;source.csv:5",
	}
	if !slices.Equal(got, want) {
		t.Errorf("duplicate_postings:\n got %q\nwant %q", got, want)
	}
	if strings.Contains(notes, "duplicates:") {
		t.Errorf("both inputs checked, yet a note: %s", notes)
	}
}

// No repeat: the check passes, on each input that has the columns.
func TestDuplicatePostingsPass(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, a VARCHAR, b VARCHAR", []any{"1", "x", nil}, []any{"2", "x", "y"}, []any{"3", nil, "y"})
	load(t, db, "sink", "id VARCHAR, a VARCHAR, b VARCHAR", []any{"1", "x", nil}, []any{"2", "x", "y"}, []any{"3", nil, "y"})
	_, outs, _ := runChecks(t, db, checks.Columns{ID: []string{"id"}, Duplicates: []string{"a", "b"}}, "duplicate_postings")
	if o := outs["duplicate_postings"]; o.Status != checks.Pass || o.Exceptions != 0 {
		t.Errorf("duplicate_postings %s, %d exceptions", o.Status, o.Exceptions)
	}
}

// Whether the check is listed: with duplicates: always; without it, left
// out of a control with an id (duplicate_ids finds its repeated records),
// and skipped, not passed, in a control without one.
func TestDuplicatePostingsApplies(t *testing.T) {
	c := find(t, builtin(t), "duplicate_postings")
	for _, tc := range []struct {
		name             string
		p                *checks.Params
		applies, skipped bool
	}{
		{"records, no duplicates:", &checks.Params{ID: []string{"id"}}, false, false},
		{"no id, no duplicates:", &checks.Params{Measures: []string{"delta"}}, true, true},
		{"duplicates:", &checks.Params{Duplicates: []string{"a"}, Postings: []checks.PostingInput{{Table: "source"}}}, true, false},
		{"windowed", &checks.Params{Replay: &checks.Replay{}}, false, false},
	} {
		if got := c.Applies(tc.p); got != tc.applies {
			t.Errorf("%s: applies %v", tc.name, got)
		}
		if got := len(c.Missing(tc.p)) > 0; tc.applies && got != tc.skipped {
			t.Errorf("%s: skipped %v", tc.name, got)
		}
	}
}

// A column of duplicates: that no input has with the others is refused,
// naming each column and the input lacking it; one input having them all
// is enough.
func TestPlanDuplicates(t *testing.T) {
	src := cols("aid", "BIGINT", "tid", "BIGINT", "delta", "DECIMAL(18,2)")
	sink := cols("aid", "BIGINT", "Delta", "DECIMAL(18,2)")
	in, note, err := checks.PlanDuplicates([]string{"aid", "delta"}, src, sink)
	if err != nil || !slices.Equal(in, []string{"source"}) || !strings.Contains(note, `the sink lacks "delta" (did you mean "Delta"? names are compared exactly)`) {
		t.Errorf("one input: %v, %q, %v", in, note, err)
	}
	_, _, err = checks.PlanDuplicates([]string{"aid", "tid", "mtime"}, src, sink)
	if !errors.Is(err, checks.ErrColumn) {
		t.Fatalf("no input has mtime: %v", err)
	}
	for _, want := range []string{"duplicates: [aid, tid, mtime]: no input has every column", `the source lacks "mtime" (its columns are: aid, tid, delta)`, `the sink lacks "tid", "mtime"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
	if in, _, err := checks.PlanDuplicates(nil, src, sink); in != nil || err != nil {
		t.Errorf("none: %v, %v", in, err)
	}
}

// A column of duplicates: named like one of the check's own (side,
// copies, locations) is refused with the rename: that resolves it, never
// written under a name DuckDB made up.
func TestDuplicatePostingsNameClash(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, copies VARCHAR", []any{"1", "x"}, []any{"2", "x"})
	load(t, db, "sink", "id VARCHAR, copies VARCHAR", []any{"1", "x"})
	ctx := context.Background()
	p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id"}, Duplicates: []string{"copies"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = checks.Run(ctx, db, []*checks.Check{find(t, builtin(t), "duplicate_postings")}, p, nil)
	if !errors.Is(err, checks.ErrNameClash) {
		t.Errorf("a posting column named copies: %v", err)
	}
}
