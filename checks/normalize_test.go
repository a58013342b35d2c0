package checks_test

// Normalised keys (issue 31, item 4): normalize: of an id or group column
// is applied before matching and grouping in every check, one test per
// family of checks, and two spellings of one key within an input are an
// exception of normalized_collisions, never a silent merge.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// runChecks prepares source and sink (loaded in db) with c and runs the
// built-in checks ids, returning the prepared parameters, the outcomes by
// id and Prepare's notes (one per line).
func runChecks(t *testing.T, db *duck.DB, c checks.Columns, ids ...string) (*checks.Params, map[string]*checks.Outcome, string) {
	t.Helper()
	ctx := context.Background()
	p, notes, err := checks.Prepare(ctx, db, c)
	if err != nil {
		t.Fatal(err)
	}
	all := builtin(t)
	var run []*checks.Check
	for _, id := range ids {
		run = append(run, find(t, all, id))
	}
	outs, err := checks.Run(ctx, db, run, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]*checks.Outcome{}
	for _, o := range outs {
		m[o.ID] = o
	}
	return p, m, strings.Join(notes, "\n")
}

// status is an outcome as "status count", or "absent" for a check that
// was not run (it does not apply).
func status(o *checks.Outcome) string {
	if o == nil {
		return "absent"
	}
	return fmt.Sprintf("%s %d", o.Status, o.Exceptions)
}

// strip_leading_zeros, trim and casefold normalise exactly as defined, in
// one order whatever the spec's (trim, then strip_leading_zeros, then
// casefold): leading '0's go, a value of zeros only is "0", a sign or white
// space before the zeros keeps them unless trimmed, and a value trimmed to
// nothing is NULL (a null id).
func TestNormalizeRule(t *testing.T) {
	rows := [][]any{{"000"}, {"0"}, {"007"}, {"0A12"}, {"-007"}, {" 07"}, {"100"}, {"   "}, {"AbC"}, {nil}}
	for _, tc := range []struct {
		normalize []string
		want      []string
	}{
		{[]string{"strip_leading_zeros"}, []string{"0", "0", "7", "A12", "-007", " 07", "100", "   ", "AbC", "NULL"}},
		{[]string{"strip_leading_zeros", "trim"}, []string{"0", "0", "7", "A12", "-007", "7", "100", "NULL", "AbC", "NULL"}},
		{[]string{"casefold", "strip_leading_zeros", "trim"}, []string{"0", "0", "7", "a12", "-007", "7", "100", "NULL", "abc", "NULL"}},
	} {
		t.Run(strings.Join(tc.normalize, ","), func(t *testing.T) {
			db := newDB(t)
			load(t, db, "source", "id VARCHAR", rows...)
			load(t, db, "sink", "id VARCHAR", rows...)
			if _, _, err := checks.Prepare(context.Background(), db, checks.Columns{ID: []string{"id"}, Normalize: map[string][]string{"id": tc.normalize}}); err != nil {
				t.Fatal(err)
			}
			for _, table := range []string{"source", "sink"} {
				if got := query(t, db, "SELECT coalesce(id, 'NULL') FROM "+table+" ORDER BY __row"); !slices.Equal(got, tc.want) {
					t.Errorf("%s: %q, want %q", table, got, tc.want)
				}
			}
		})
	}
}

// The id checks (missing_ids, unexpected_ids, duplicate_ids,
// value_mismatches) match "D  " with "D" and "0042" with "42" only with
// trim and strip_leading_zeros — without, one missing and one unexpected
// each — from table id_counts and with their own joins alike; a number
// against text is matched as text, so the BIGINT 7 meets "007".
// normalized_matches lists each id matched only after normalising with
// both spellings, and value_mismatches compares the pairs normalising made.
func TestNormalizedIDs(t *testing.T) {
	for _, without := range []bool{false, true} {
		for _, normalize := range []bool{false, true} {
			db := newDB(t)
			load(t, db, "source", "id VARCHAR, amount VARCHAR", []any{"D  ", "1.00"}, []any{"0042", "2.00"}, []any{"E", "3.00"})
			load(t, db, "sink", "id VARCHAR, amount VARCHAR", []any{"D", "1.00"}, []any{"42", "2.50"}, []any{"E", "3.00"})
			c := checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}}
			if normalize {
				c.Normalize = map[string][]string{"id": {"trim", "strip_leading_zeros"}}
			}
			var outs map[string]*checks.Outcome
			ids := []string{"missing_ids", "unexpected_ids", "duplicate_ids", "value_mismatches", "normalized_matches", "normalized_collisions"}
			run := func() { _, outs, _ = runChecks(t, db, c, ids...) }
			if without {
				checks.WithoutIDCounts(run)
			} else {
				run()
			}
			want := map[string]string{"missing_ids": "fail 2", "unexpected_ids": "fail 2", "duplicate_ids": "pass 0", "value_mismatches": "pass 0",
				"normalized_matches": "absent", "normalized_collisions": "absent"}
			if normalize {
				want = map[string]string{"missing_ids": "pass 0", "unexpected_ids": "pass 0", "duplicate_ids": "pass 0", "value_mismatches": "fail 1",
					"normalized_matches": "info 2", "normalized_collisions": "pass 0"}
			}
			for id, w := range want {
				if got := status(outs[id]); got != w {
					t.Errorf("normalize %v, without id_counts %v: %s %s, want %s", normalize, without, id, got, w)
				}
			}
			if !normalize {
				if got := query(t, db, "SELECT id FROM "+duck.Ident(outs["missing_ids"].Table)); !slices.Equal(got, []string{"0042", "D  "}) {
					t.Errorf("missing_ids %q", got)
				}
				continue
			}
			if got := query(t, db, `SELECT id || '|' || "column" || '|' || source_value || '|' || sink_value || '|' || normalized_value || '|' || collision || '|' || source_location || '|' || sink_location FROM `+duck.Ident(outs["normalized_matches"].Table)); !slices.Equal(got, []string{
				"42|id|0042|42|42|false|source.csv:3|sink.csv:3", "D|id|D  |D|D|false|source.csv:2|sink.csv:2"}) {
				t.Errorf("normalized_matches %q", got)
			}
			if got := query(t, db, `SELECT id || '|' || source_value || '|' || sink_value FROM `+duck.Ident(outs["value_mismatches"].Table)); !slices.Equal(got, []string{"42|2.00|2.50"}) {
				t.Errorf("value_mismatches %q", got)
			}
		}
	}
	t.Run("number against text", func(t *testing.T) {
		db := newDB(t)
		load(t, db, "source", "id BIGINT", []any{7}, []any{8})
		load(t, db, "sink", "id VARCHAR", []any{"007"}, []any{"8"})
		_, outs, _ := runChecks(t, db, checks.Columns{ID: []string{"id"}, Normalize: map[string][]string{"id": {"strip_leading_zeros"}}}, "missing_ids", "unexpected_ids", "normalized_matches")
		if got := status(outs["missing_ids"]) + ", " + status(outs["unexpected_ids"]) + ", " + status(outs["normalized_matches"]); got != "pass 0, pass 0, info 1" {
			t.Errorf("%s", got)
		}
	})
}

// Two spellings of one id within one input ("A1" and "a1" with casefold)
// are a collision: duplicate_ids lists the id's two rows, as it lists any
// id on two rows, and normalized_collisions fails the control with the
// normalised id, each spelling, the input and the locations — never a
// silent merge. The match of the sink's "A1" with the source's "a1" is
// listed by normalized_matches with collision true.
func TestNormalizedCollision(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, amount VARCHAR", []any{"A1", "1.00"}, []any{"a1", "2.00"}, []any{"B", "3.00"})
	load(t, db, "sink", "id VARCHAR, amount VARCHAR", []any{"A1", "1.00"}, []any{"B", "3.00"})
	_, outs, _ := runChecks(t, db, checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}, Normalize: map[string][]string{"id": {"casefold"}}},
		"duplicate_ids", "normalized_collisions", "normalized_matches")
	for id, w := range map[string]string{"duplicate_ids": "fail 1", "normalized_collisions": "fail 1", "normalized_matches": "info 1"} {
		if got := status(outs[id]); got != w {
			t.Errorf("%s: %s, want %s", id, got, w)
		}
	}
	nc := outs["normalized_collisions"]
	if got := query(t, db, "SELECT id || '|' || keyed_by || '|' || side || '|' || spellings || '|' || row_count || '|' || locations FROM "+duck.Ident(nc.Table)); !slices.Equal(got, []string{
		`a1|id|source|["A1","a1"]|2|source.csv:2;source.csv:3`}) {
		t.Errorf("normalized_collisions %q", got)
	}
	if got := roleOf(nc, "id") + " " + roleOf(nc, "locations"); got != "id/ location/" {
		t.Errorf("normalized_collisions roles: %s", got)
	}
	if got := query(t, db, "SELECT source_value || '|' || sink_value || '|' || collision FROM "+duck.Ident(outs["normalized_matches"].Table)); !slices.Equal(got, []string{"a1|A1|true"}) {
		t.Errorf("normalized_matches %q", got)
	}
	// A composite id collides only when the whole id is one: ("A1", 1) and
	// ("a1", 2) are two ids, ("B ", 1) and ("B", 1) one.
	db = newDB(t)
	load(t, db, "source", "id VARCHAR, leg BIGINT", []any{"A1", 1}, []any{"a1", 2}, []any{"B ", 1}, []any{"B", 1})
	load(t, db, "sink", "id VARCHAR, leg BIGINT", []any{"a1", 1}, []any{"A1", 2})
	_, outs, _ = runChecks(t, db, checks.Columns{ID: []string{"id", "leg"}, Normalize: map[string][]string{"id": {"casefold", "trim"}}}, "normalized_collisions", "missing_ids")
	if got := query(t, db, "SELECT id || '|' || leg || '|' || spellings FROM "+duck.Ident(outs["normalized_collisions"].Table)); !slices.Equal(got, []string{`b|1|["B","B "]`}) {
		t.Errorf("normalized_collisions of a composite id %q", got)
	}
	if got := query(t, db, "SELECT id || '|' || leg FROM "+duck.Ident(outs["missing_ids"].Table)); !slices.Equal(got, []string{"b|1"}) {
		t.Errorf("missing_ids %q, want the one id the sink lacks, normalised", got)
	}
}

// row_count_balance and sum_balance group by the normalised group
// column: the source's "ACC1 " and the sink's "acc1" are one group with
// trim and casefold, and two groups out of balance without; a group
// written two ways within one input is a collision (keyed_by group_by) —
// also in a group_by column that is not compared (ignore:).
func TestNormalizedGroups(t *testing.T) {
	for _, normalize := range []bool{false, true} {
		db := newDB(t)
		load(t, db, "source", "id VARCHAR, account VARCHAR, amount VARCHAR",
			[]any{"1", "ACC1 ", "1.00"}, []any{"2", "ACC1 ", "2.00"}, []any{"3", "B", "5.00"})
		load(t, db, "sink", "id VARCHAR, account VARCHAR, amount VARCHAR",
			[]any{"1", "acc1", "1.00"}, []any{"2", "acc1", "2.00"}, []any{"3", "b", "5.00"})
		c := checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}, GroupBy: []string{"account"}, Ignore: []string{"account"}}
		if normalize {
			c.Normalize = map[string][]string{"account": {"trim", "casefold"}}
		}
		_, outs, _ := runChecks(t, db, c, "row_count_balance", "sum_balance", "normalized_collisions", "value_mismatches")
		want := "fail 4, fail 4, absent, pass 0"
		if normalize {
			want = "pass 0, pass 0, pass 0, pass 0"
		}
		if got := status(outs["row_count_balance"]) + ", " + status(outs["sum_balance"]) + ", " + status(outs["normalized_collisions"]) + ", " + status(outs["value_mismatches"]); got != want {
			t.Errorf("normalize %v: %s, want %s", normalize, got, want)
		}
	}
	db := newDB(t)
	load(t, db, "source", "account VARCHAR, amount VARCHAR", []any{"ACC1", "1.00"}, []any{"acc1", "2.00"}, []any{"ACC1", "4.00"})
	load(t, db, "sink", "account VARCHAR, amount VARCHAR", []any{"acc1", "7.00"})
	_, outs, _ := runChecks(t, db, checks.Columns{ID: []string{"amount"}, GroupBy: []string{"account"}, Normalize: map[string][]string{"account": {"casefold"}}},
		"sum_balance", "row_count_balance", "normalized_collisions")
	if got := query(t, db, "SELECT account || '|' || keyed_by || '|' || side || '|' || spellings || '|' || row_count || '|' || locations FROM "+duck.Ident(outs["normalized_collisions"].Table)); !slices.Equal(got, []string{
		`acc1|group_by|source|["ACC1","acc1"]|3|source.csv:2;source.csv:3`}) {
		t.Errorf("normalized_collisions of a group %q", got)
	}
	if got := status(outs["row_count_balance"]); got != "fail 1" {
		t.Errorf("row_count_balance %s, want fail 1 (3 source rows in acc1, 1 sink row)", got)
	}
}

// A compared group column with normalize: is compared normalised (it is
// rewritten in place as a key), and normalized_matches lists the pair with
// its values as written; a compared column that is not a key takes
// strip_leading_zeros too.
func TestNormalizedComparedGroup(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, account VARCHAR, ref VARCHAR", []any{"1", " X", "0012"}, []any{"2", "Y", "5"})
	load(t, db, "sink", "id VARCHAR, account VARCHAR, ref VARCHAR", []any{"1", "X", "12"}, []any{"2", "Y", "05"})
	_, outs, _ := runChecks(t, db, checks.Columns{ID: []string{"id"}, GroupBy: []string{"account"},
		Normalize: map[string][]string{"account": {"trim"}, "ref": {"strip_leading_zeros"}}}, "value_mismatches", "normalized_matches", "normalized_collisions")
	if got := status(outs["value_mismatches"]) + ", " + status(outs["normalized_matches"]) + ", " + status(outs["normalized_collisions"]); got != "pass 0, info 3, pass 0" {
		t.Errorf("%s", got)
	}
	if got := query(t, db, `SELECT id || '|' || "column" || '|' || source_value || '|' || sink_value || '|' || normalized_value FROM `+duck.Ident(outs["normalized_matches"].Table)); !slices.Equal(got, []string{
		"1|account| X|X|X", "1|ref|0012|12|12", "2|ref|5|05|5"}) {
		t.Errorf("normalized_matches %q", got)
	}
}

// key_checkpoint_conflicts groups the logical key — here the record id —
// by its normalised value: "K1" under checkpoint 1 and "K1 " under
// checkpoint 2 are one key written twice, a conflict found only after
// trimming (and the two spellings in the sink are a collision).
func TestNormalizedLogicalKey(t *testing.T) {
	for _, normalize := range []bool{false, true} {
		db := newDB(t)
		load(t, db, "source", "id VARCHAR", []any{"K1"})
		load(t, db, "sink", "id VARCHAR, checkpoint_id BIGINT", []any{"K1", 1}, []any{"K1 ", 2})
		c := checks.Columns{ID: []string{"id"}, LogicalKey: []string{"id"}, Checkpoint: "checkpoint_id"}
		if normalize {
			c.Normalize = map[string][]string{"id": {"trim"}}
		}
		_, outs, _ := runChecks(t, db, c, "key_checkpoint_conflicts", "normalized_collisions")
		want := "pass 0, absent"
		if normalize {
			want = "fail 1, fail 1"
		}
		if got := status(outs["key_checkpoint_conflicts"]) + ", " + status(outs["normalized_collisions"]); got != want {
			t.Errorf("normalize %v: %s, want %s", normalize, got, want)
		}
	}
}

// normalize: of an id or group column that is not text is refused before
// any check runs, naming the column, its kind and both types: an integer
// has nothing to trim, pad or fold. A normalised key named like a column of
// key_spellings is refused too.
func TestNormalizeKeysRefused(t *testing.T) {
	for _, tc := range []struct {
		cols  string
		c     checks.Columns
		wants []string
	}{
		{"id BIGINT, account VARCHAR", checks.Columns{ID: []string{"id"}, Normalize: map[string][]string{"id": {"trim"}}},
			[]string{"normalize.id: the id column is BIGINT in the source and BIGINT in the sink, matched as number", "BIGINT (an integer) has no white space"}},
		{"id VARCHAR, day DATE", checks.Columns{ID: []string{"id"}, GroupBy: []string{"day"}, Normalize: map[string][]string{"day": {"strip_leading_zeros"}}},
			[]string{"normalize.day: the group_by column is DATE in the source and DATE in the sink, matched as date"}},
		{"__side VARCHAR", checks.Columns{ID: []string{"__side"}, Normalize: map[string][]string{"__side": {"trim"}}},
			[]string{"normalize.__side: a normalised id or group column cannot be named __side"}},
	} {
		db := newDB(t)
		load(t, db, "source", tc.cols)
		load(t, db, "sink", tc.cols)
		_, _, err := checks.Prepare(context.Background(), db, tc.c)
		if !errors.Is(err, checks.ErrColumn) {
			t.Errorf("%v: err = %v, want ErrColumn", tc.c.Normalize, err)
			continue
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("err = %v, want one containing %q", err, w)
			}
		}
	}
}

// A normalize: of a group column in a control whose keys are not planned
// (no id) is refused, not ignored: its groups would be those as written.
func TestNormalizeKeysWithoutID(t *testing.T) {
	db := newDB(t)
	load(t, db, "source", "account VARCHAR, amount VARCHAR", []any{"A", "1"})
	load(t, db, "sink", "account VARCHAR, amount VARCHAR", []any{"a", "1"})
	_, _, err := checks.Prepare(context.Background(), db, checks.Columns{GroupBy: []string{"account"}, Measures: []string{"amount"}, Normalize: map[string][]string{"account": {"casefold"}}})
	if !errors.Is(err, checks.ErrColumn) || !strings.Contains(err.Error(), "normalize.account: the group_by column is not matched as a key in this control (no id:)") {
		t.Errorf("err = %v", err)
	}
}

// NormalizeKeys rewrites a further table's normalised key columns as
// Prepare did the source's and sink's (the sink's uncommitted ids), and
// leaves a table without them alone.
func TestNormalizeKeysOfAnotherTable(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	load(t, db, "source", "id VARCHAR", []any{"1"})
	load(t, db, "sink", "id VARCHAR", []any{"1"})
	load(t, db, "sink_uncommitted", "id VARCHAR", []any{" 007"}, []any{"8"})
	load(t, db, "other", "x VARCHAR", []any{" 007"})
	p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id"}, Normalize: map[string][]string{"id": {"trim", "strip_leading_zeros"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"sink_uncommitted", "other"} {
		if err := p.NormalizeKeys(ctx, db, table); err != nil {
			t.Fatal(err)
		}
	}
	if got := query(t, db, "SELECT id FROM sink_uncommitted ORDER BY __row"); !slices.Equal(got, []string{"7", "8"}) {
		t.Errorf("sink_uncommitted %q", got)
	}
	if got := query(t, db, "SELECT x FROM other"); !slices.Equal(got, []string{" 007"}) {
		t.Errorf("other %q", got)
	}
}

// The whole control: the evidence keeps the statement of key_spellings for
// re-performance, the notes say which keys were normalised and how many
// rows each input wrote otherwise, and the run history's scope of the id
// checks names the id's normalisation.
func TestNormalizedKeysEvidence(t *testing.T) {
	dir := t.TempDir()
	src, snk := filepath.Join(dir, "source.csv"), filepath.Join(dir, "sink.csv")
	if err := os.WriteFile(src, []byte("id,amount\nD  ,1.00\nE,2.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snk, []byte("id,amount\nD,1.00\nE,2.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, out := reconcile(t, src, snk, spec.Spec{ID: []string{"id"}, Measures: []string{"amount"}, Normalize: map[string][]string{"id": {"trim"}}})
	wantStatuses(t, res, map[string]string{"missing_ids": "pass 0", "unexpected_ids": "pass 0", "normalized_matches": "info 1", "normalized_collisions": "pass 0"})
	b, err := os.ReadFile(filepath.Join(out, "queries", "_key_spellings.sql"))
	if err != nil || !strings.Contains(string(b), "CREATE OR REPLACE TEMP TABLE key_spellings AS") {
		t.Errorf("queries/_key_spellings.sql: %v\n%s", err, b)
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.HasPrefix(n, "matched and grouped after normalising, in every check: id (id: trim); 1 source and 0 sink row(s) were written otherwise")
	}) {
		t.Errorf("notes %q", res.Notes)
	}
}
