package checks_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// reconcile runs the whole control on two files and returns the result and
// the evidence folder.
func reconcile(t *testing.T, source, sink string, s spec.Spec) (*evidence.Summary, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "evidence")
	s.Source = spec.Input{URI: source}
	s.Sink = spec.Input{URI: sink}
	s.Out = out
	if s.Dir == "" {
		s.Dir, _ = os.Getwd()
	}
	res, err := control.Run(context.Background(), &s, control.Options{Formats: []string{"json", "md"}})
	if err != nil {
		t.Fatalf("control.Run: %v", err)
	}
	return res, out
}

func outcome(t *testing.T, res *evidence.Summary, id string) *evidence.Check {
	t.Helper()
	for _, c := range res.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no outcome for check %s", id)
	return nil
}

// exceptions returns the exceptions CSV of a check, header included.
func exceptions(t *testing.T, dir, id string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "exceptions", id+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// statuses maps every check to its status and exception count, for
// compact assertions.
func statuses(res *evidence.Summary) map[string]string {
	m := map[string]string{}
	for _, c := range res.Checks {
		m[c.ID] = fmt.Sprintf("%s %d", c.Status, c.Exceptions)
	}
	return m
}

func wantStatuses(t *testing.T, res *evidence.Summary, want map[string]string) {
	t.Helper()
	got := statuses(res)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: got %q, want %q", id, got[id], w)
		}
	}
}

// Naive input 1: an in-checkpoint retry writes 3 and 4 twice. A distinct-id
// comparison calls this balanced (5 ids each side); the row count is 5 vs 7,
// and since every row has checkpoint 7 it is not a replay across checkpoints.
func TestInCheckpointRetry(t *testing.T) {
	res, dir := reconcile(t, "testdata/retry/source.csv", "testdata/retry/sink.csv", spec.Spec{
		ID: []string{"id"}, Measures: []string{"amount"}, Checkpoint: "checkpoint_id", LogicalKey: []string{"id"},
	})
	wantStatuses(t, res, map[string]string{
		"duplicate_ids": "fail 2", "missing_ids": "pass 0", "unexpected_ids": "pass 0",
		"row_count_balance": "fail 1", "sum_balance": "fail 1", "key_checkpoint_conflicts": "pass 0",
		"value_mismatches": "pass 0", "null_ids": "pass 0",
	})
	if got, want := exceptions(t, dir, "duplicate_ids"), `id,side,row_count,conflicting,checkpoint_ids,locations
3,sink,2,false,7,testdata/retry/sink.csv:4;testdata/retry/sink.csv:6
4,sink,2,false,7,testdata/retry/sink.csv:5;testdata/retry/sink.csv:7
`; got != want {
		t.Errorf("duplicate_ids.csv:\n%s\nwant:\n%s", got, want)
	}
	if got, want := exceptions(t, dir, "row_count_balance"), "source_rows,sink_rows,difference\n5,7,2\n"; got != want {
		t.Errorf("row_count_balance.csv = %q, want %q", got, want)
	}
	if res.Totals.SourceDistinctIDs != 5 || res.Totals.SinkDistinctIDs != 5 {
		t.Errorf("distinct ids %d/%d, want 5/5", res.Totals.SourceDistinctIDs, res.Totals.SinkDistinctIDs)
	}
	if res.Status != evidence.Fail {
		t.Errorf("status %s, want fail", res.Status)
	}
}

// Naive input 2: NULL ids. NOT IN over a subquery holding NULL finds nothing
// missing; GROUP BY calls the two NULLs a duplicate. Right: 4 is missing,
// two NULL-id rows are null_ids exceptions, no duplicate.
func TestNullIDs(t *testing.T) {
	res, dir := reconcile(t, "testdata/nullids/source.csv", "testdata/nullids/sink.csv", spec.Spec{ID: []string{"id"}})
	wantStatuses(t, res, map[string]string{
		"missing_ids": "fail 1", "null_ids": "fail 2", "duplicate_ids": "pass 0", "unexpected_ids": "pass 0",
		"row_count_balance": "fail 1", "value_mismatches": "skipped 0", "sum_balance": "skipped 0",
	})
	if got := exceptions(t, dir, "missing_ids"); !strings.HasPrefix(got, "id,source_rows,source_location\n4,1,testdata/nullids/source.csv:5\n") {
		t.Errorf("missing_ids.csv = %q", got)
	}
	if got, want := exceptions(t, dir, "null_ids"), "id,side,file,line\n,sink,testdata/nullids/sink.csv,4\n,sink,testdata/nullids/sink.csv,5\n"; got != want {
		t.Errorf("null_ids.csv = %q, want %q", got, want)
	}
}

// Naive input 3: type sniffing looks at the first 20,480 rows only, so a
// late "007" id becomes 7 and a late quantity "1.5" becomes 2 when the
// column was sniffed as BIGINT. Right: 30,002 distinct ids, nothing missing
// or duplicated, quantity sum exactly 30002.5.
func TestLateValuesSurviveSniffing(t *testing.T) {
	dir := t.TempDir()
	var src, sink strings.Builder
	src.WriteString("id,quantity\n")
	sink.WriteString("id,quantity\n")
	for i := 1; i <= 30000; i++ {
		fmt.Fprintf(&src, "%d,1\n", i)
		fmt.Fprintf(&sink, "%d,1\n", i)
	}
	src.WriteString("007,1\n30001,1.5\n")
	sink.WriteString("007,1\n30001,1.5\n")
	write(t, filepath.Join(dir, "source.csv"), src.String())
	write(t, filepath.Join(dir, "sink.csv"), sink.String())
	res, _ := reconcile(t, filepath.Join(dir, "source.csv"), filepath.Join(dir, "sink.csv"), spec.Spec{ID: []string{"id"}, Measures: []string{"quantity"}})
	if res.Totals.SinkDistinctIDs != 30002 || res.Totals.SinkRows != 30002 {
		t.Errorf("sink distinct ids %d rows %d, want 30002 and 30002", res.Totals.SinkDistinctIDs, res.Totals.SinkRows)
	}
	wantStatuses(t, res, map[string]string{"duplicate_ids": "pass 0", "missing_ids": "pass 0", "unexpected_ids": "pass 0", "sum_balance": "pass 0"})
	if m := res.Totals.Measures[0]; m.SinkSum != "30002.5" || m.SourceSum != "30002.5" {
		t.Errorf("quantity sums %s / %s, want 30002.5", m.SourceSum, m.SinkSum)
	}
}

// Naive input 4: in floating point 0.1+0.2 and the order of additions change
// the sum; in exact decimals both orders give 383.100.
func TestExactSumsInAnyOrder(t *testing.T) {
	res, _ := reconcile(t, "testdata/amounts/source.csv", "testdata/amounts/sink.csv", spec.Spec{ID: []string{"id"}, Measures: []string{"amount"}})
	m := res.Totals.Measures[0]
	if m.SourceSum != "383.100" || m.SinkSum != "383.100" || m.Difference != "0.000" || m.Type != "DECIMAL(38,3)" {
		t.Errorf("totals %+v, want 383.100 both sides, difference 0.000, DECIMAL(38,3)", m)
	}
	wantStatuses(t, res, map[string]string{"sum_balance": "pass 0", "value_mismatches": "pass 0"})
}

// Naive input 5: a UTF-8 byte-order mark before the header must not hide
// the id column.
func TestByteOrderMark(t *testing.T) {
	res, _ := reconcile(t, "testdata/bom/source.csv", "testdata/bom/sink.csv", spec.Spec{ID: []string{"id"}, Measures: []string{"amount"}})
	if res.Status != evidence.Pass {
		t.Errorf("status %s, want pass: %v", res.Status, statuses(res))
	}
}

// Naive input 6: a header-only sink is an empty population, not an error:
// every source id is missing.
func TestHeaderOnlySink(t *testing.T) {
	res, dir := reconcile(t, "testdata/headeronly/source.csv", "testdata/headeronly/sink.csv", spec.Spec{ID: []string{"id"}, Measures: []string{"amount"}})
	wantStatuses(t, res, map[string]string{"missing_ids": "fail 3", "row_count_balance": "fail 1", "sum_balance": "fail 1", "unexpected_ids": "pass 0"})
	if got, want := exceptions(t, dir, "sum_balance"), "source_amount,sink_amount,difference_amount\n18,0,-18\n"; got != want {
		t.Errorf("sum_balance.csv = %q, want %q", got, want)
	}
}

// Naive input 7: ids are compared byte for byte: "A1 " is not "A1" and "b2"
// is not "B2" (no trimming, no case folding).
func TestIDsComparedByteForByte(t *testing.T) {
	res, dir := reconcile(t, "testdata/bytes/source.csv", "testdata/bytes/sink.csv", spec.Spec{ID: []string{"id"}})
	wantStatuses(t, res, map[string]string{"missing_ids": "fail 1", "unexpected_ids": "fail 2", "duplicate_ids": "pass 0"})
	if got := exceptions(t, dir, "missing_ids"); !strings.Contains(got, "\nb2,") {
		t.Errorf("missing_ids.csv = %q, want b2", got)
	}
	got := exceptions(t, dir, "unexpected_ids")
	if !strings.Contains(got, "\nA1 ,") || !strings.Contains(got, "\nB2,") {
		t.Errorf("unexpected_ids.csv = %q, want \"A1 \" and B2", got)
	}
}

// Naive input 8: a composite id (region, sub) with sub NULL matches
// NULL-safely; two sink rows (eu, NULL) with different amounts are one
// conflicting duplicate — not one missing id and two unexpected ones.
func TestCompositeIDWithNullPart(t *testing.T) {
	res, dir := reconcile(t, "testdata/composite/source.csv", "testdata/composite/sink.csv", spec.Spec{ID: []string{"region", "sub"}, Measures: []string{"amount"}})
	wantStatuses(t, res, map[string]string{"duplicate_ids": "fail 1", "missing_ids": "pass 0", "unexpected_ids": "pass 0", "null_ids": "pass 0"})
	if got := exceptions(t, dir, "duplicate_ids"); !strings.HasPrefix(got, "region,sub,side,row_count,conflicting,checkpoint_ids,locations\neu,,sink,2,true,") {
		t.Errorf("duplicate_ids.csv = %q", got)
	}
	note := strings.Join(outcome(t, res, "missing_ids").Notes, " ")
	if !strings.Contains(note, "NULL-safely") || !strings.Contains(note, "1 source and 2 sink rows") {
		t.Errorf("missing_ids notes %q should say NULL parts are compared NULL-safely", note)
	}
}

// Equal totals never hide a key mismatch: id 3 became 4 with the same amount,
// so count and sum balance, but the control fails on missing and unexpected.
func TestEqualSumsDoNotHideKeyMismatch(t *testing.T) {
	res, _ := reconcile(t, "testdata/swapped/source.csv", "testdata/swapped/sink.csv", spec.Spec{ID: []string{"id"}, Measures: []string{"amount"}})
	wantStatuses(t, res, map[string]string{"sum_balance": "pass 0", "row_count_balance": "pass 0", "missing_ids": "fail 1", "unexpected_ids": "fail 1"})
	if res.Status != evidence.Fail {
		t.Errorf("status %s, want fail", res.Status)
	}
}

// Per-group balance: group_by reports each imbalanced group, with groups
// present on one side only.
func TestGroupBalance(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "s.csv"), "id,account,amount\n1,A,1.10\n2,A,2.20\n3,B,3.30\n")
	write(t, filepath.Join(dir, "k.csv"), "id,account,amount\n1,A,1.10\n2,A,2.20\n3,C,3.30\n")
	_, out := reconcile(t, filepath.Join(dir, "s.csv"), filepath.Join(dir, "k.csv"), spec.Spec{ID: []string{"id"}, Measures: []string{"amount"}, GroupBy: []string{"account"}})
	if got, want := exceptions(t, out, "sum_balance"), "account,source_amount,sink_amount,difference_amount\nB,3.30,0.00,-3.30\nC,0.00,3.30,3.30\n"; got != want {
		t.Errorf("sum_balance.csv = %q, want %q", got, want)
	}
	if got, want := exceptions(t, out, "row_count_balance"), "account,source_rows,sink_rows,difference\nB,1,0,-1\nC,0,1,1\n"; got != want {
		t.Errorf("row_count_balance.csv = %q, want %q", got, want)
	}
}

// A value that differs on a matched id is a value mismatch with the exact
// difference, even when another row of the same id matches.
func TestValueMismatch(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "s.csv"), "id,amount\n1,10.00\n2,20.00\n")
	write(t, filepath.Join(dir, "k.csv"), "id,amount\n1,10.00\n2,20.01\n2,20.00\n")
	res, out := reconcile(t, filepath.Join(dir, "s.csv"), filepath.Join(dir, "k.csv"), spec.Spec{ID: []string{"id"}, Measures: []string{"amount"}})
	if got := exceptions(t, out, "value_mismatches"); !strings.Contains(got, "\n2,20.00,20.01,0.01,") || strings.Count(got, "\n") != 2 {
		t.Errorf("value_mismatches.csv = %q", got)
	}
	wantStatuses(t, res, map[string]string{"duplicate_ids": "fail 1"})
	if got := exceptions(t, out, "duplicate_ids"); !strings.Contains(got, "\n2,sink,2,true,") {
		t.Errorf("duplicate_ids.csv = %q, want 2 conflicting", got)
	}
}

// A check whose columns were not given is skipped, and skipped is not pass.
func TestSkippedIsNotPass(t *testing.T) {
	res, _ := reconcile(t, "testdata/bom/source.csv", "testdata/bom/sink.csv", spec.Spec{ID: []string{"id"}})
	for _, o := range res.Checks {
		if o.ID == "duplicate_keys" || o.ID == "reperformance_mismatches" {
			t.Errorf("window check %s is listed for a record-level sink", o.ID)
		}
	}
	for _, id := range []string{"value_mismatches", "sum_balance", "key_checkpoint_conflicts"} {
		if o := outcome(t, res, id); o.Status != checks.Skipped || o.SkipReason == "" || o.File != "" {
			t.Errorf("%s: %+v, want skipped with a reason and no file", id, o)
		}
	}
}

// Two runs over the same inputs write byte-identical exception files.
func TestDeterministicExceptions(t *testing.T) {
	_, a := reconcile(t, "testdata/composite/source.csv", "testdata/composite/sink.csv", spec.Spec{ID: []string{"region", "sub"}, Measures: []string{"amount"}})
	_, b := reconcile(t, "testdata/composite/source.csv", "testdata/composite/sink.csv", spec.Spec{ID: []string{"region", "sub"}, Measures: []string{"amount"}})
	files, _ := filepath.Glob(filepath.Join(a, "exceptions", "*.csv"))
	if len(files) == 0 {
		t.Fatal("no exception files")
	}
	for _, f := range files {
		x, _ := os.ReadFile(f)
		y, err := os.ReadFile(filepath.Join(b, "exceptions", filepath.Base(f)))
		if err != nil || string(x) != string(y) {
			t.Errorf("%s differs between runs", filepath.Base(f))
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A row written with no checkpoint id is not dropped from the checkpoint
// evidence: it counts as checkpoint NULL.
func TestMissingCheckpointID(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "s.csv"), "id\nA\n")
	write(t, filepath.Join(dir, "k.csv"), "id,cp\nA,1\nA,\n")
	res, out := reconcile(t, filepath.Join(dir, "s.csv"), filepath.Join(dir, "k.csv"), spec.Spec{ID: []string{"id"}, Checkpoint: "cp", LogicalKey: []string{"id"}})
	wantStatuses(t, res, map[string]string{"key_checkpoint_conflicts": "fail 1", "duplicate_ids": "fail 1"})
	if got := exceptions(t, out, "key_checkpoint_conflicts"); !strings.Contains(got, "\nA,2,1;NULL,2,") {
		t.Errorf("key_checkpoint_conflicts.csv = %q", got)
	}
}

// CSV reads an empty quoted field as NULL; NDJSON keeps "" as empty text.
// An empty id part is NULL on both sides, so the same record matches
// whatever the formats.
func TestEmptyIDPartAcrossFormats(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "s.csv"), "a,b\nY,\"\"\n")
	write(t, filepath.Join(dir, "k.ndjson"), "{\"a\": \"Y\", \"b\": \"\"}\n")
	res, _ := reconcile(t, filepath.Join(dir, "s.csv"), filepath.Join(dir, "k.ndjson"), spec.Spec{ID: []string{"a", "b"}})
	wantStatuses(t, res, map[string]string{"missing_ids": "pass 0", "unexpected_ids": "pass 0", "null_ids": "pass 0"})
}
