package control_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/history"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// night writes one night's source (ids 1..n in two accounts) and a sink
// that holds each id once plus a second copy of each id in dup, and
// returns the spec of a control over them with history file hist.
func night(t *testing.T, dir, name string, n int, dup []int, hist string) *spec.Spec {
	t.Helper()
	var src, snk strings.Builder
	src.WriteString("id,account,amount\n")
	snk.WriteString("id,account,amount\n")
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("E%03d,ACC-%d,%d.00\n", i, i%2, i)
		src.WriteString(line)
		snk.WriteString(line)
	}
	for _, i := range dup {
		snk.WriteString(fmt.Sprintf("E%03d,ACC-%d,%d.00\n", i, i%2, i))
	}
	d := filepath.Join(dir, name)
	os.MkdirAll(d, 0o755)
	os.WriteFile(filepath.Join(d, "source.csv"), []byte(src.String()), 0o644)
	os.WriteFile(filepath.Join(d, "sink.csv"), []byte(snk.String()), 0o644)
	return &spec.Spec{
		Name: "ledger-nightly", Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "sink.csv"},
		ID: []string{"id"}, Measures: []string{"amount"}, GroupBy: []string{"account"},
		Out: filepath.Join(dir, "evidence", name), Dir: d, History: hist,
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// column returns the values of column name in rows (a CSV with a header).
func column(rows [][]string, name string) []string {
	var out []string
	for i, h := range rows[0] {
		if h == name {
			for _, r := range rows[1:] {
				out = append(out, r[i])
			}
		}
	}
	return out
}

// Three nights against one history: night 2's duplicates are new, night
// 3's are recurring (with the run first seen and two open runs), new or
// resolved; the CSVs carry the lifecycle, resolved/ the keys gone; the
// history lists the three runs.
func TestHistoryClassifies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hist := filepath.Join(dir, "evidence", "history.duckdb")
	run := func(s *spec.Spec, h int) *evidence.Summary {
		t.Helper()
		res, err := control.Run(ctx, s, control.Options{Formats: []string{"json", "xlsx", "html", "md"}, Now: clock(h)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	r1 := run(night(t, dir, "n1", 20, nil, hist), 1)
	if r1.Status != evidence.Pass || r1.History == nil || r1.History.PreviousRun != nil {
		t.Fatalf("night 1: status %s, history %+v", r1.Status, r1.History)
	}
	r2 := run(night(t, dir, "n2", 20, []int{3, 4, 5, 6}, hist), 2)
	if got, want := sinceLastRun(t, r2, "duplicate_ids"), (evidence.SinceLastRun{Compared: true, KeyColumns: []string{"id"}, New: 4}); !reflect.DeepEqual(got, want) {
		t.Errorf("night 2 duplicate_ids: %+v, want %+v", got, want)
	}
	if r2.History.PreviousRun == nil || r2.History.PreviousRun.ID != r1.Run.ID {
		t.Errorf("night 2 previous run = %+v, want %s", r2.History.PreviousRun, r1.Run.ID)
	}
	// Night 3: 3 and 4 repaired, 5 and 6 still doubled, 7 new.
	r3 := run(night(t, dir, "n3", 20, []int{5, 6, 7}, hist), 3)
	want := evidence.SinceLastRun{Compared: true, KeyColumns: []string{"id"}, New: 1, Recurring: 2, Resolved: 2, ResolvedFile: "resolved/duplicate_ids.csv"}
	if got := sinceLastRun(t, r3, "duplicate_ids"); !reflect.DeepEqual(got, want) {
		t.Errorf("night 3 duplicate_ids: %+v, want %+v", got, want)
	}
	// Both accounts are off in both nights: recurring groups.
	if got := sinceLastRun(t, r3, "row_count_balance"); got.KeyColumns[0] != "account" || got.Recurring != 2 || got.New != 0 || got.Resolved != 0 {
		t.Errorf("night 3 row_count_balance: %+v", got)
	}
	ev3 := filepath.Join(dir, "evidence", "n3")
	rows := readCSV(t, filepath.Join(ev3, "exceptions", "duplicate_ids.csv"))
	if got := rows[0][len(rows[0])-4:]; !reflect.DeepEqual(got, evidence.LifecycleColumns) {
		t.Errorf("header ends %v, want %v", got, evidence.LifecycleColumns)
	}
	for name, want := range map[string][]string{
		"id":              {"E005", "E006", "E007"},
		"since_last_run":  {"recurring", "recurring", "new"},
		"first_seen_run":  {r2.Run.ID, r2.Run.ID, r3.Run.ID},
		"first_seen_date": {"2026-11-27", "2026-11-27", "2026-11-27"},
		"open_runs":       {"2", "2", "1"},
	} {
		if got := column(rows, name); !reflect.DeepEqual(got, want) {
			t.Errorf("night 3 duplicate_ids %s = %v, want %v", name, got, want)
		}
	}
	resolved := readCSV(t, filepath.Join(ev3, "resolved", "duplicate_ids.csv"))
	if want := [][]string{{"id", "first_seen_run", "first_seen_date", "open_runs", "last_seen_run"},
		{"E003", r2.Run.ID, "2026-11-27", "1", r2.Run.ID}, {"E004", r2.Run.ID, "2026-11-27", "1", r2.Run.ID}}; !reflect.DeepEqual(resolved, want) {
		t.Errorf("resolved = %v, want %v", resolved, want)
	}
	// The evidence with its resolved/ folder verifies, and the trend has
	// the three runs.
	if v, err := evidence.Verify(ctx, ev3, nil); err != nil || !v.OK() {
		t.Errorf("verify night 3: %+v, %v", v, err)
	}
	if n := len(r3.History.Runs); n != 3 || r3.History.Runs[2].ID != r3.Run.ID || r3.History.Runs[1].Exceptions["duplicate_ids"] != 4 {
		t.Errorf("trend = %+v", r3.History.Runs)
	}
	runs, err := history.List(ctx, hist, "ledger-nightly")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[0].ID != r1.Run.ID || runs[2].ID != r3.Run.ID || runs[2].Exceptions["duplicate_ids"] != 3 {
		t.Fatalf("history lists %d runs: %+v", len(runs), runs)
	}
	if c := findCheck(runs[2], "duplicate_ids"); c.New != 1 || c.Recurring != 2 || c.Resolved != 2 {
		t.Errorf("recorded night 3 duplicate_ids: %+v", c)
	}

	// Night 4 fails to read its sink: it publishes nothing and the
	// history is byte for byte as it was.
	before, _ := os.ReadFile(hist)
	bad := night(t, dir, "n4", 20, []int{5}, hist)
	os.WriteFile(filepath.Join(bad.Dir, "sink.csv"), []byte("id,account,amount\nE001,ACC-1,1.0O\n"), 0o644)
	if _, err := control.Run(ctx, bad, control.Options{Formats: []string{"json"}, Now: clock(4)}); err == nil || fault.Of(err) != fault.Runtime {
		t.Fatalf("night 4 with a bad value: %v, want a runtime error", err)
	}
	if after, _ := os.ReadFile(hist); !bytes.Equal(before, after) {
		t.Error("a failed run changed the history file")
	}
	if runs, _ := history.List(ctx, hist, ""); len(runs) != 3 {
		t.Errorf("after the failed run the history lists %d runs, want 3", len(runs))
	}
}

// sinceLastRun is check's since_last_run in r.
func sinceLastRun(t *testing.T, r *evidence.Summary, check string) evidence.SinceLastRun {
	t.Helper()
	c := r.Check(check)
	if c == nil || c.SinceLastRun == nil {
		t.Fatalf("%s: no since_last_run", check)
	}
	return *c.SinceLastRun
}

func findCheck(r *history.RunRecord, id string) history.CheckRecord {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return history.CheckRecord{}
}

// A history file that is not a reconcile history — not DuckDB at all, a
// DuckDB database of something else, a newer schema — is refused before
// any input is read (exit 2), and left as it was.
func TestHistoryRefusesForeignFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ledger := filepath.Join(dir, "ledger.duckdb")
	makeDuck(t, ledger, "CREATE TABLE postings (entry_id VARCHAR, amount DECIMAL(18,2)); INSERT INTO postings VALUES ('E1', 1.00)")
	newer := filepath.Join(dir, "newer.duckdb")
	makeDuck(t, newer, "CREATE TABLE reconcile_history (magic VARCHAR, schema_version INTEGER, created_at TIMESTAMPTZ, created_by VARCHAR); "+
		"INSERT INTO reconcile_history VALUES ('"+history.Magic+"', 99, now(), 'v9')")
	damaged := filepath.Join(dir, "damaged.duckdb")
	makeDuck(t, damaged, "CREATE TABLE reconcile_history (magic VARCHAR, schema_version INTEGER, created_at TIMESTAMPTZ, created_by VARCHAR); "+
		"INSERT INTO reconcile_history VALUES ('"+history.Magic+"', 1, now(), 'v1')")
	truncated := filepath.Join(dir, "truncated.duckdb")
	data, _ := os.ReadFile(ledger)
	os.WriteFile(truncated, data[:8], 0o644)
	for name, c := range map[string]struct{ path, want string }{
		"csv":       {writeFile(t, filepath.Join(dir, "history.csv"), "entry_id,amount\nE1,1.00\n"), "is not a DuckDB database"},
		"empty":     {writeFile(t, filepath.Join(dir, "empty.duckdb"), ""), "is not a DuckDB database"},
		"truncated": {truncated, "is not a DuckDB database"},
		"foreign":   {ledger, "not a reconcile run history (it has no reconcile_history table; tables: postings)"},
		"newer":     {newer, "has schema version 99 (created by reconcile v9); this reconcile reads version 1"},
		"damaged":   {damaged, "is damaged: table exceptions of schema version 1 is missing"},
	} {
		t.Run(name, func(t *testing.T) {
			before, _ := os.ReadFile(c.path)
			s := newSpec(t, "sink.csv", filepath.Join(dir, "ev-"+name))
			s.Name, s.History = "c", c.path
			_, err := control.Run(ctx, s, control.Options{Formats: []string{"json"}})
			if !errors.Is(err, history.ErrHistory) || fault.Of(err) != fault.Usage || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrHistory (exit 2) saying %q", err, c.want)
			}
			if after, _ := os.ReadFile(c.path); !bytes.Equal(before, after) {
				t.Error("the file was changed")
			}
			if _, err := os.Stat(s.Out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("evidence folder written: %v", err)
			}
		})
	}
}

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// makeDuck creates a DuckDB database file holding what stmts make.
func makeDuck(t *testing.T, path, stmts string) {
	t.Helper()
	ctx := context.Background()
	db, err := duck.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"ATTACH " + duck.Literal(path) + " AS f", "USE f", stmts, "USE memory", "DETACH f"} {
		if err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

// A check looked for with other settings than the previous run's (a
// column added to ignore:, a tolerance, allow_empty:) calls none of that
// run's exceptions resolved — this run may no longer look for them — and
// its note says what changed and how many are not found now; an exception
// both runs found still recurs. A scale the data widens (1.000 for 1.00),
// the compared columns in another order and a check without a change are
// compared as before.
func TestHistoryScopeChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hist := filepath.Join(dir, "evidence", "history.duckdb")
	run := func(name string, h int, sinkAmount string, reorder bool, mutate func(*spec.Spec)) *evidence.Summary {
		t.Helper()
		var src, snk strings.Builder
		if reorder {
			src.WriteString("id,status,amount,account\n")
		} else {
			src.WriteString("id,account,amount,status\n")
		}
		snk.WriteString("id,account,amount,status\n")
		for i := 1; i <= 8; i++ {
			if reorder {
				fmt.Fprintf(&src, "E%03d,posted,%d.00,ACC-%d\n", i, i, i%2)
			} else {
				fmt.Fprintf(&src, "E%03d,ACC-%d,%d.00,posted\n", i, i%2, i)
			}
			status := "posted"
			if i == 3 || i == 4 {
				status = "" // the replayed copies of seed 003, written without a status
			}
			amount := fmt.Sprintf("%d.00", i)
			if i == 7 {
				amount = sinkAmount
			}
			if i == 8 {
				amount = "8.01" // a mismatch of amount every night
			}
			fmt.Fprintf(&snk, "E%03d,ACC-%d,%s,%s\n", i, i%2, amount, status)
		}
		fmt.Fprintf(&snk, "E005,ACC-1,5.00,posted\n") // a duplicate every night
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "source.csv"), []byte(src.String()), 0o644)
		os.WriteFile(filepath.Join(d, "sink.csv"), []byte(snk.String()), 0o644)
		s := &spec.Spec{
			Name: "ledger-nightly", Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "sink.csv"},
			ID: []string{"id"}, Measures: []string{"amount"}, GroupBy: []string{"account"},
			Out: filepath.Join(dir, "evidence", name), Dir: d, History: hist,
		}
		if mutate != nil {
			mutate(s)
		}
		res, err := control.Run(ctx, s, control.Options{Formats: []string{"json"}, Now: clock(h)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	r1 := run("n1", 1, "7.00", false, nil)
	if c := r1.Check("value_mismatches"); c.Exceptions != 3 {
		t.Fatalf("night 1 value_mismatches: %d exceptions, want 3 (status of E003 and E004, amount of E008)", c.Exceptions)
	}
	ignore := func(s *spec.Spec) { s.Ignore = []string{"status"} }
	r2 := run("n2", 2, "7.00", false, ignore)
	vm := sinceLastRun(t, r2, "value_mismatches")
	if !vm.Compared || vm.Recurring != 1 || vm.New != 0 || vm.Resolved != 0 || vm.NotFound != 2 || vm.ResolvedFile != "" ||
		!strings.Contains(vm.Note, "compared: account, amount, status → account, amount") || !strings.Contains(vm.Note, r1.Run.ID) || !strings.Contains(vm.Note, ": 2 of that run's exceptions are not found now") {
		t.Errorf("night 2 value_mismatches with status ignored: %+v; want E008 recurring, nothing resolved, a note naming the run, the column and the 2 not found", vm)
	}
	if _, err := os.Stat(filepath.Join(dir, "evidence", "n2", "resolved", "value_mismatches.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("night 2 lists resolved value mismatches: %v", err)
	}
	if d := sinceLastRun(t, r2, "duplicate_ids"); !d.Compared || d.Recurring != 1 || d.Note != "" {
		t.Errorf("night 2 duplicate_ids (its settings unchanged): %+v, want compared, 1 recurring", d)
	}
	// Night 3: the same settings, E007's sink amount written 7.000 (a
	// scale the data widens) and the source's columns in another order:
	// compared as before, E008 open three runs.
	r3 := run("n3", 3, "7.000", true, ignore)
	if vm := sinceLastRun(t, r3, "value_mismatches"); !vm.Compared || vm.Note != "" || vm.Recurring != 1 {
		t.Errorf("night 3 value_mismatches (settings as night 2): %+v, want compared, 1 recurring, no note", vm)
	}
	rows := readCSV(t, filepath.Join(dir, "evidence", "n3", "exceptions", "value_mismatches.csv"))
	if got := column(rows, "open_runs"); !reflect.DeepEqual(got, []string{"3"}) {
		t.Errorf("night 3 value_mismatches open_runs = %v, want [3] (E008 since night 1)", got)
	}
	if sb := sinceLastRun(t, r3, "sum_balance"); !sb.Compared || sb.Recurring != 2 {
		t.Errorf("night 3 sum_balance (a wider scale only): %+v, want compared, 2 recurring", sb)
	}
	// Night 4: a tolerance on amount covers E008's cent: nothing resolved,
	// the note names the tolerance.
	tol, err := spec.ParseTolerance("0.01")
	if err != nil {
		t.Fatal(err)
	}
	r4 := run("n4", 4, "7.000", true, func(s *spec.Spec) { ignore(s); s.Tolerance = map[string]spec.Tolerance{"amount": tol} })
	if vm := sinceLastRun(t, r4, "value_mismatches"); vm.Resolved != 0 || vm.New+vm.Recurring != 0 || !strings.Contains(vm.Note, "compared: account, amount → account, amount (tolerance 0.01)): 1 of that run's exceptions are not found now") {
		t.Errorf("night 4 value_mismatches with a tolerance: %+v", vm)
	}
	// E008's cent, within the tolerance, is listed but is no exception: it
	// has no lifecycle, and the history holds no key of it.
	rows = readCSV(t, filepath.Join(dir, "evidence", "n4", "exceptions", "value_mismatches.csv"))
	if got, want := column(rows, "within_tolerance"), []string{"true"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("night 4 value_mismatches within_tolerance = %v, want %v", got, want)
	}
	if got := column(rows, "since_last_run"); !reflect.DeepEqual(got, []string{""}) {
		t.Errorf("night 4 value_mismatches since_last_run = %q, want none for a row within tolerance", got)
	}
	r4b := run("n4b", 4, "7.000", true, func(s *spec.Spec) { ignore(s); s.Tolerance = map[string]spec.Tolerance{"amount": tol} })
	if vm := sinceLastRun(t, r4b, "value_mismatches"); !vm.Compared || vm.New+vm.Recurring+vm.Resolved != 0 || vm.Note != "" {
		t.Errorf("night 4 again, E008 within tolerance: %+v, want no exception new, recurring or resolved", vm)
	}
	if sb := sinceLastRun(t, r4, "sum_balance"); !sb.Compared || sb.Recurring != 2 || sb.Note != "" {
		t.Errorf("night 4 sum_balance: %+v, want compared, 2 recurring", sb)
	}
	// Nights 5 and 6: an empty sink fails population; with allow_empty:
	// [sink] the next night it is not called resolved.
	for i, allow := range []bool{false, true} {
		s := night(t, dir, fmt.Sprintf("n%d", 5+i), 3, nil, hist)
		os.WriteFile(filepath.Join(s.Dir, "sink.csv"), []byte("id,account,amount\n"), 0o644)
		if allow {
			s.AllowEmpty = []string{"sink"}
		}
		res, err := control.Run(ctx, s, control.Options{Formats: []string{"json"}, Now: clock(5 + i)})
		if err != nil {
			t.Fatal(err)
		}
		if p := sinceLastRun(t, res, "population"); allow && (p.Resolved != 0 || !strings.Contains(p.Note, "allow_empty: none → sink") || !strings.Contains(p.Note, "1 of that run's exceptions are not found now")) {
			t.Errorf("night 6 population with allow_empty: [sink]: %+v", p)
		}
	}
}

// A run that published its evidence but is not in the history — stopped
// (SIGKILL, a cron timeout) or its recording failed between the two,
// which leaves its publishing mark beside the history — is named in the
// next run's evidence with a WARNING, and that run is classified against
// the run before it. The mark stays until a run that says so is recorded:
// a run that fails meanwhile leaves it for the next. A run recorded
// normally leaves no mark; a mark of a run that never published (its
// folder absent) or that the history holds is dropped without a word; a
// mark that cannot be read is a WARNING, not a failure; a run that
// replaces the folder of such a run says it does.
func TestHistoryUnrecordedRun(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hist := filepath.Join(dir, "evidence", "history.duckdb")
	marks := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "evidence", ".history.duckdb.publishing-*"))
		return m
	}
	run := func(s *spec.Spec, h int) *evidence.Summary {
		t.Helper()
		res, err := control.Run(ctx, s, control.Options{Formats: []string{"json"}, Now: clock(h), Force: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	warnings := func(r *evidence.Summary) string {
		var w []string
		for _, n := range r.Notes {
			if strings.HasPrefix(n, "WARNING: ") && (strings.Contains(n, "is not in the history") || strings.Contains(n, "publishing mark")) {
				w = append(w, n)
			}
		}
		return strings.Join(w, "\n")
	}
	r1 := run(night(t, dir, "n1", 10, []int{2}, hist), 1)
	if m := marks(); len(m) != 0 {
		t.Fatalf("a recorded run left its publishing mark: %v", m)
	}
	// Night 2 publishes and is stopped before it is recorded: its
	// evidence is in place, its mark beside the history, the history
	// without it.
	n2 := night(t, dir, "n2", 10, []int{2, 3}, "")
	n2.Name = "ledger-nightly"
	r2 := run(n2, 2)
	unrecorded := history.Publishing{RunID: r2.Run.ID, Control: "ledger-nightly", Evidence: n2.Out, StartedAt: r2.Run.StartedAt}
	if err := history.MarkPublishing(hist, unrecorded); err != nil {
		t.Fatal(err)
	}
	// Night 3 fails before it publishes (a bad value): the mark stays.
	bad := night(t, dir, "n3", 10, []int{2}, hist)
	os.WriteFile(filepath.Join(bad.Dir, "sink.csv"), []byte("id,account,amount\nE001,ACC-1,1.0O\n"), 0o644)
	if _, err := control.Run(ctx, bad, control.Options{Formats: []string{"json"}, Now: clock(3)}); err == nil {
		t.Fatal("night 3 with a bad value ran")
	}
	if len(marks()) != 1 {
		t.Fatalf("after a failed run, marks %v, want night 2's", marks())
	}
	r3 := run(night(t, dir, "n3", 10, []int{2, 3}, hist), 3)
	w := warnings(r3)
	if !strings.Contains(w, r2.Run.ID) || !strings.Contains(w, n2.Out+")") || !strings.Contains(w, "the run before, "+r1.Run.ID) {
		t.Errorf("night 3 warnings %q: want one naming night 2 (%s, %s) and the run it is classified against (%s)", w, r2.Run.ID, n2.Out, r1.Run.ID)
	}
	if r3.History.PreviousRun == nil || r3.History.PreviousRun.ID != r1.Run.ID {
		t.Errorf("night 3 previous run %+v, want night 1", r3.History.PreviousRun)
	}
	if m := marks(); len(m) != 0 {
		t.Errorf("night 3, recorded, left publishing marks: %v", m)
	}
	if r := run(night(t, dir, "n4", 10, []int{2, 3}, hist), 4); warnings(r) != "" {
		t.Errorf("night 4: %s", warnings(r))
	}
	// Night 5 is stopped after publishing; its --force run again replaces
	// that evidence, and says so.
	n5 := night(t, dir, "n5", 10, []int{2, 3}, "")
	n5.Name = "ledger-nightly"
	r5 := run(n5, 5)
	if err := history.MarkPublishing(hist, history.Publishing{RunID: r5.Run.ID, Control: "ledger-nightly", Evidence: n5.Out, StartedAt: r5.Run.StartedAt}); err != nil {
		t.Fatal(err)
	}
	if w := warnings(run(night(t, dir, "n5", 10, []int{2, 3}, hist), 6)); !strings.Contains(w, n5.Out+", which this run replaces)") {
		t.Errorf("night 5 again: %q, want a WARNING that it replaces that evidence", w)
	}
	// A mark of a run whose folder is not there (stopped before
	// publishing), or of a run the history holds (stopped after recording):
	// dropped, no word. A mark cut short: a WARNING, then removed.
	for i, p := range []history.Publishing{
		{RunID: "20261127T050000Z-00000000", Control: "ledger-nightly", Evidence: filepath.Join(dir, "evidence", "never"), StartedAt: "2026-11-27T05:00:00Z"},
		{RunID: r3.Run.ID, Control: "ledger-nightly", Evidence: filepath.Join(dir, "evidence", "n3"), StartedAt: r3.Run.StartedAt},
	} {
		if err := history.MarkPublishing(hist, p); err != nil {
			t.Fatal(err)
		}
		if r := run(night(t, dir, fmt.Sprintf("n%d", 7+i), 10, nil, hist), 7+i); warnings(r) != "" {
			t.Errorf("mark of %s: %s", p.RunID, warnings(r))
		}
		if m := marks(); len(m) != 0 {
			t.Errorf("mark of %s left: %v", p.RunID, m)
		}
	}
	if err := history.MarkPublishing(hist, history.Publishing{RunID: "20261127T090000Z-11111111", Control: "ledger-nightly"}); err != nil {
		t.Fatal(err)
	}
	cut := marks()[0]
	os.WriteFile(cut, []byte(`{"run_id": "20261127T0900`), 0o644)
	if w := warnings(run(night(t, dir, "n9", 10, nil, hist), 9)); !strings.Contains(w, cut+" cannot be read") {
		t.Errorf("a mark cut short: warnings %q", w)
	}
	if m := marks(); len(m) != 0 {
		t.Errorf("the mark cut short left: %v", m)
	}
}

// A control's name may hold any character its lock file can: its
// publishing mark is named for a hash of it (a name with a slash, or of
// 200 characters, runs and records).
func TestHistoryControlNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hist := filepath.Join(dir, "evidence", "history.duckdb")
	for i, name := range []string{"team/ledger", strings.Repeat("l", 200)} {
		s := night(t, dir, fmt.Sprintf("n%d", i), 5, []int{2}, hist)
		s.Name = name
		res, err := control.Run(ctx, s, control.Options{Formats: []string{"json"}, Now: clock(i + 1)})
		if err != nil {
			t.Fatalf("control %q: %v", name, err)
		}
		if runs, err := history.List(ctx, hist, name); err != nil || len(runs) != 1 || runs[0].ID != res.Run.ID {
			t.Errorf("control %q: history %v, %v", name, runs, err)
		}
	}
}

// A period run again after later ones (a backfill: day=2 after day=3) is
// classified against the last run recorded, and says so with a WARNING
// naming the earlier run of the same parameters; the runs of other
// parameters after it say nothing.
func TestHistoryRepeatedParameters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hist := filepath.Join(dir, "evidence", "history.duckdb")
	var ids []string
	warnings := map[string]string{}
	for i, day := range []string{"1", "2", "3", "2", "4"} {
		s := night(t, dir, fmt.Sprintf("n%d", i), 10, []int{2}, hist)
		s.Params = map[string]string{"day": day}
		res, err := control.Run(ctx, s, control.Options{Formats: []string{"json"}, Now: clock(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Run.ID)
		for _, n := range res.Notes {
			if strings.HasPrefix(n, "WARNING") {
				warnings[res.Run.ID] += n
			}
		}
	}
	w := warnings[ids[3]]
	if !strings.Contains(w, ids[1]) || !strings.Contains(w, "day=2") || !strings.Contains(w, ids[2]+" (day=3)") {
		t.Errorf("the repeated day=2 run: warnings %q; want one naming the first day=2 run %s and the last run %s", w, ids[1], ids[2])
	}
	for _, i := range []int{0, 1, 2, 4} {
		if w := warnings[ids[i]]; w != "" {
			t.Errorf("run %d: %s", i, w)
		}
	}
}

// A history that lost part of a run's exception keys (a run stopped while
// its recording was made durable: DuckDB can then keep the run and not all
// of its keys) is not compared with for the checks it lost keys of: their
// exceptions are all new, a WARNING says so, and none is called resolved
// — the lost keys would otherwise be new and recurring ones resolved.
func TestHistoryLostKeys(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hist := filepath.Join(dir, "evidence", "history.duckdb")
	run := func(name string, h int) *evidence.Summary {
		t.Helper()
		res, err := control.Run(ctx, night(t, dir, name, 10, []int{2, 3, 4}, hist), control.Options{Formats: []string{"json"}, Now: clock(h)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	r1 := run("n1", 1)
	db, err := duck.Open(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ATTACH '" + hist + "' AS h",
		"DELETE FROM h.exceptions WHERE check_id = 'duplicate_ids' AND key = ['E003']",
		"CHECKPOINT h", "DETACH h",
	} {
		if err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	r2 := run("n2", 2)
	d := sinceLastRun(t, r2, "duplicate_ids")
	if d.Compared || d.New != 3 || d.Resolved != 0 || !strings.Contains(d.Note, "holds 2 of the 3 exception keys the previous run ("+r1.Run.ID+") recorded") {
		t.Errorf("duplicate_ids against a history that lost a key: %+v", d)
	}
	var warned bool
	for _, n := range r2.Notes {
		warned = warned || strings.HasPrefix(n, "WARNING: the history") && strings.Contains(n, "holds only part") && strings.Contains(n, "duplicate_ids")
	}
	if !warned {
		t.Errorf("no WARNING of the damaged history: %q", r2.Notes)
	}
	if k := sinceLastRun(t, r2, "row_count_balance"); !k.Compared || k.Recurring != 2 {
		t.Errorf("row_count_balance (its keys whole): %+v, want compared, 2 recurring", k)
	}
}

// A check of matched records (value_mismatches) looks at an id only while
// it is in both inputs: a mismatch of an id missing from the sink the next
// night is not resolved — missing_ids has the id — but not found, with a
// note; one whose id is matched and agrees now is resolved.
func TestHistoryUnmatchedNotResolved(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	hist := filepath.Join(dir, "evidence", "history.duckdb")
	run := func(name string, h int, sink string) *evidence.Summary {
		t.Helper()
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, "source.csv"), []byte("id,status\nE1,posted\nE2,posted\nE3,posted\n"), 0o644)
		os.WriteFile(filepath.Join(d, "sink.csv"), []byte(sink), 0o644)
		res, err := control.Run(ctx, &spec.Spec{Name: "c", Source: spec.Input{URI: "source.csv"}, Sink: spec.Input{URI: "sink.csv"},
			ID: []string{"id"}, Out: filepath.Join(dir, "evidence", name), Dir: d, History: hist}, control.Options{Formats: []string{"json"}, Now: clock(h)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	run("n1", 1, "id,status\nE1,POSTED\nE2,POSTED\nE3,posted\n")
	r2 := run("n2", 2, "id,status\nE1,posted\nE3,posted\n") // E1 repaired, E2 gone
	vm := sinceLastRun(t, r2, "value_mismatches")
	if !vm.Compared || vm.Resolved != 1 || vm.NotFound != 1 || !strings.Contains(vm.Note, "1 of the previous run's") || !strings.Contains(vm.Note, "not in both inputs now") {
		t.Errorf("value_mismatches with E1 repaired and E2 gone from the sink: %+v; want E1 resolved, E2 not found, with a note", vm)
	}
	resolved := readCSV(t, filepath.Join(dir, "evidence", "n2", "resolved", "value_mismatches.csv"))
	if got := column(resolved, "id"); !reflect.DeepEqual(got, []string{"E1"}) {
		t.Errorf("resolved ids %v, want [E1]", got)
	}
	if m := sinceLastRun(t, r2, "missing_ids"); m.New != 1 {
		t.Errorf("missing_ids: %+v, want E2 new", m)
	}
}
