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

// ledgerTables loads a balance control's inputs: postings (the source,
// pgbench_history-like: no posting id, aid INTEGER, delta as text), the
// closing balances (the sink, one row per account: aid BIGINT, delta
// DECIMAL) and, with opening, the opening balances (aid INTEGER).
//
// Against the closing balances alone: 1 and 2 balance; 3 has a posting
// twice (51.00 against 25.50); 4 has a balance and no postings and 8 one of
// 5.00 and none, which an inner join of postings to balances never sees; 5
// and 9 have postings and no balance row, which a join from the balances
// never sees; 6 nets to 0 and has a balance of 0, and 7 has a balance of 0
// on two rows and no postings: both balanced, since absent is 0 — but 7's
// second row is a duplicate balance row, which no sum can show (0 + 0).
func ledgerTables(t *testing.T, db *duck.DB, opening bool) {
	load(t, db, "source", "aid INTEGER, tid INTEGER, delta VARCHAR",
		[]any{1, 1, "100.00"}, []any{1, 2, "-30.00"}, []any{2, 1, "50.00"}, []any{3, 3, "25.50"}, []any{3, 3, "25.50"},
		[]any{5, 2, "12.00"}, []any{6, 1, "7.25"}, []any{6, 2, "-7.25"}, []any{9, 1, "3.00"})
	load(t, db, "sink", "aid BIGINT, bid INTEGER, delta DECIMAL(10,2)",
		[]any{1, 1, "70.00"}, []any{2, 1, "50.00"}, []any{3, 1, "25.50"}, []any{4, 1, "40.00"},
		[]any{6, 1, "0.00"}, []any{7, 1, "0.00"}, []any{7, 1, "0.00"}, []any{8, 1, "5.00"})
	if opening {
		// 1 continues; 4 and 8 keep their balance with no postings; 9 is
		// closed by its postings (-3.00 + 3.00); 10 is closed but had 2.00
		// and no postings took it out; 11 is closed at 0, on two rows.
		load(t, db, "opening", "aid INTEGER, delta VARCHAR",
			[]any{1, "0.00"}, []any{4, "40.00"}, []any{8, "5.00"}, []any{9, "-3.00"}, []any{10, "2.00"},
			[]any{11, "0.00"}, []any{11, "0.00"})
	}
}

// ledgerColumns is the balance control over ledgerTables: sink at balance
// grain, with an opening when opening is set and with balance_tolerance
// when tol is not "".
func ledgerColumns(t *testing.T, opening bool, tol string) checks.Columns {
	c := checks.Columns{Measures: []string{"delta"}, GroupBy: []string{"aid"}, Balance: true, SinkGrain: checks.GrainBalance,
		Opening: opening, OpeningLocation: ""}
	if tol != "" {
		v, err := spec.ParseTolerance(tol)
		if err != nil {
			t.Fatal(err)
		}
		c.BalanceTolerance = map[string]checks.Tolerance{"delta": v}
	}
	return c
}

// ledgerParams are the Params Prepare gives a roll-forward over
// ledgerTables, with a balance tolerance.
func ledgerParams(t *testing.T) *checks.Params {
	db := newDB(t)
	ledgerTables(t, db, true)
	p, _, err := checks.Prepare(context.Background(), db, ledgerColumns(t, true, "1.00"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runLedger prepares ledgerTables for ledgerColumns and runs every
// built-in check.
func runLedger(t *testing.T, opening bool, tol string) (*duck.DB, []*checks.Outcome) {
	t.Helper()
	ctx := context.Background()
	db := newDB(t)
	ledgerTables(t, db, opening)
	p, _, err := checks.Prepare(ctx, db, ledgerColumns(t, opening, tol))
	if err != nil {
		t.Fatal(err)
	}
	all := builtin(t)
	outs, err := checks.Run(ctx, db, all, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Status != checks.Skipped {
			checkDeclaredRoles(t, find(t, all, o.ID), o)
		}
	}
	return db, outs
}

// A balance control: only population, duplicate_balance_rows and
// sum_balance run; the record-id checks are skipped as not run for want of
// an id, and row_count_balance because the sink is at balance grain.
// sum_balance lists exactly the accounts out of balance, each present on
// one side only with 0 on the other, with the exact percentage and the
// postings behind the source sum; duplicate_balance_rows names account 7's
// two balance rows, which balance in sum.
func TestBalanceControlChecks(t *testing.T) {
	db, outs := runLedger(t, false, "")
	status := map[string]string{}
	for _, o := range outs {
		status[o.ID] = string(o.Status) + " " + o.SkipReason
	}
	want := map[string]string{
		"population":               "pass ",
		"null_ids":                 "skipped " + checks.SkipNoID,
		"missing_ids":              "skipped " + checks.SkipNoID,
		"unexpected_ids":           "skipped " + checks.SkipNoID,
		"duplicate_ids":            "skipped " + checks.SkipNoID,
		"value_mismatches":         "skipped " + checks.SkipNoID,
		"key_checkpoint_conflicts": "skipped " + checks.SkipNoID,
		"duplicate_postings":       "skipped not configured: needs duplicates",
		"row_count_balance":        "skipped the sink is at balance grain (grain:): one row per group, holding its balance, so rows are not postings to count",
		"duplicate_balance_rows":   "fail ",
		"sum_balance":              "fail ",
	}
	for id, w := range want {
		if status[id] != w {
			t.Errorf("%s: %q, want %q", id, status[id], w)
		}
	}
	if len(status) != len(want) {
		t.Errorf("checks %v, want those of %v", status, want)
	}
	sum := outcomeOf(t, outs, "sum_balance")
	if got := query(t, db, "SELECT * FROM "+duck.Ident(sum.Table)); !slices.Equal(got, []string{
		"3|51.00|25.50|-25.50|-50.000000|2",
		"4|0.00|40.00|40.00|NULL|0",
		"5|12.00|0.00|-12.00|-100.000000|1",
		"8|0.00|5.00|5.00|NULL|0",
		"9|3.00|0.00|-3.00|-100.000000|1",
	}) {
		t.Errorf("sum_balance rows %q", got)
	}
	if got := strings.Join(sum.ColumnNames(), ","); got != "aid,source_delta,sink_delta,difference_delta,difference_pct_delta,source_postings" {
		t.Errorf("sum_balance columns %s", got)
	}
	if got := roleOf(sum, "difference_pct_delta"); got != "difference_pct/delta" {
		t.Errorf("difference_pct_delta: %s", got)
	}
	dup := outcomeOf(t, outs, "duplicate_balance_rows")
	if got := query(t, db, "SELECT * FROM "+duck.Ident(dup.Table)); !slices.Equal(got, []string{"7|sink|2|sink.csv:7;sink.csv:8"}) {
		t.Errorf("duplicate_balance_rows rows %q", got)
	}
}

// Both inputs at posting grain: row_count_balance runs (the rows are
// postings on both sides) and duplicate_balance_rows does not apply.
func TestBalanceControlPostingGrain(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	ledgerTables(t, db, false)
	c := ledgerColumns(t, false, "")
	c.SinkGrain = ""
	p, _, err := checks.Prepare(ctx, db, c)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := checks.Run(ctx, db, builtin(t), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.ID == "duplicate_balance_rows" {
			t.Errorf("duplicate_balance_rows listed without an input at balance grain")
		}
	}
	if rc := outcomeOf(t, outs, "row_count_balance"); rc.Status != checks.Fail || rc.Exceptions != 8 {
		t.Errorf("row_count_balance: %s %d %s", rc.Status, rc.Exceptions, rc.SkipReason)
	}
}

// A roll-forward: roll_forward replaces sum_balance and lists exactly the
// accounts whose closing balance is not opening + postings — among them 10,
// closed with 2.00 that no posting took out, and 5, with postings and no
// balance on either side, both of which an inner join of opening to closing
// never sees — with the total (balance_tolerance given); 4 and 8 roll
// forward with no postings. roll_forward_changes lists every account
// opened, closed or with postings only, out of balance or not; the opening's
// two rows of 11 and the sink's two of 7 are duplicate balance rows.
func TestRollForwardChecks(t *testing.T) {
	db, outs := runLedger(t, true, "1.00")
	for _, o := range outs {
		if o.ID == "sum_balance" {
			t.Error("sum_balance ran beside roll_forward, which replaces it")
		}
	}
	rf := outcomeOf(t, outs, "roll_forward")
	if got := strings.Join(rf.ColumnNames(), ","); got != "aid,total,opening_delta,postings_delta,expected_delta,closing_delta,difference_delta,difference_pct_delta,tolerance_delta,status,source_postings,within_tolerance" {
		t.Errorf("roll_forward columns %s", got)
	}
	if got := query(t, db, "SELECT * FROM "+duck.Ident(rf.Table)); !slices.Equal(got, []string{
		"3|false|0.00|51.00|51.00|25.50|-25.50|-50.000000|1.00|opened|2|false",
		"5|false|0.00|12.00|12.00|0.00|-12.00|-100.000000|1.00|postings_only|1|false",
		"10|false|2.00|0.00|2.00|0.00|-2.00|-100.000000|1.00|closed|0|false",
		"NULL|true|44.00|186.00|230.00|190.50|-39.50|-17.173913|1.00|NULL|9|false",
	}) {
		t.Errorf("roll_forward rows %q", got)
	}
	if rf.Status != checks.Fail || rf.Exceptions != 4 || rf.WithinTolerance == nil || *rf.WithinTolerance != 0 {
		t.Errorf("roll_forward: %s %d within %v", rf.Status, rf.Exceptions, rf.WithinTolerance)
	}
	for name, want := range map[string]string{"opening_delta": "opening/delta", "postings_delta": "source/delta", "expected_delta": "expected/delta",
		"closing_delta": "sink/delta", "difference_delta": "difference/delta", "difference_pct_delta": "difference_pct/delta", "status": "finding/"} {
		if got := roleOf(rf, name); got != want {
			t.Errorf("roll_forward %s: %s, want %s", name, got, want)
		}
	}
	ch := outcomeOf(t, outs, "roll_forward_changes")
	if got := query(t, db, "SELECT * FROM "+duck.Ident(ch.Table)); ch.Status != checks.Info || !slices.Equal(got, []string{
		"2|opened|0.00|50.00|50.00|1",
		"3|opened|0.00|51.00|25.50|2",
		"5|postings_only|0.00|12.00|0.00|1",
		"6|opened|0.00|0.00|0.00|2",
		"7|opened|0.00|0.00|0.00|0",
		"9|closed|-3.00|3.00|0.00|1",
		"10|closed|2.00|0.00|0.00|0",
		"11|closed|0.00|0.00|0.00|0",
	}) {
		t.Errorf("roll_forward_changes: %s %q", ch.Status, got)
	}
	dup := outcomeOf(t, outs, "duplicate_balance_rows")
	if got := query(t, db, "SELECT * FROM "+duck.Ident(dup.Table)); !slices.Equal(got, []string{"7|sink|2|sink.csv:7;sink.csv:8", "11|opening|2|opening.csv:7;opening.csv:8"}) {
		t.Errorf("duplicate_balance_rows rows %q", got)
	}
	// A relative tolerance is a share of expected (opening + postings):
	// 3's 25.50 is 50% of 51.00 and the total's 39.50 less, so both are
	// listed within it, not exceptions; 5's and 10's differences are all
	// of theirs.
	db, outs = runLedger(t, true, "50%")
	rf = outcomeOf(t, outs, "roll_forward")
	if got := query(t, db, "SELECT coalesce(CAST(aid AS VARCHAR), 'total'), within_tolerance FROM "+duck.Ident(rf.Table)); rf.Exceptions != 2 || rf.WithinTolerance == nil || *rf.WithinTolerance != 2 ||
		!slices.Equal(got, []string{"3|true", "5|false", "10|false", "total|true"}) {
		t.Errorf("roll_forward within 50%%: %d exceptions, %v within: %q", rf.Exceptions, rf.WithinTolerance, got)
	}
}

// The opening's group columns are matched with the sink's: of the sink's
// type (rewritten as the sink's is), or numbers matched by exact value;
// text against the sink's BIGINT is refused, naming the column, both types
// and types: — never matched loosely.
func TestRollForwardOpeningTypes(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	ledgerTables(t, db, false)
	load(t, db, "opening", "aid VARCHAR, delta VARCHAR", []any{"1", "0.00"})
	_, _, err := checks.Prepare(ctx, db, ledgerColumns(t, true, ""))
	if !errors.Is(err, checks.ErrColumn) || !strings.Contains(err.Error(), "group column aid is VARCHAR in the opening and BIGINT in the sink") || !strings.Contains(err.Error(), "types: {aid: BIGINT}") {
		t.Fatalf("err = %v, want ErrColumn naming aid's types", err)
	}
	// A source of text ids makes the sink's matched as text: an opening of
	// the sink's type is rewritten as the sink's.
	db = newDB(t)
	load(t, db, "source", "aid VARCHAR, delta VARCHAR", []any{"7", "1.00"})
	load(t, db, "sink", "aid BIGINT, delta VARCHAR", []any{7, "3.00"})
	load(t, db, "opening", "aid BIGINT, delta VARCHAR", []any{7, "2.00"})
	p, notes, err := checks.Prepare(ctx, db, ledgerColumns(t, true, ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := query(t, db, "SELECT typeof(aid), aid FROM opening"); !slices.Equal(got, []string{"VARCHAR|7"}) {
		t.Errorf("opening aid %q; notes %q", got, notes)
	}
	outs, err := checks.Run(ctx, db, builtin(t), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rf := outcomeOf(t, outs, "roll_forward"); rf.Status != checks.Pass {
		t.Errorf("roll_forward %s: %q", rf.Status, query(t, db, "SELECT * FROM "+duck.Ident(rf.Table)))
	}
}
