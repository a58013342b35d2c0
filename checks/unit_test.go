package checks_test

// Tests of package checks on its own: the check loader, the rendering of
// checks for given Params (golden SQL), and Prepare, PrepareReplay,
// ComputeTotals, Run, LoadRestarts and SummarizeReplay against a real
// in-memory DuckDB with tiny tables. The tests in checks_test.go and
// reperform_test.go run the whole control instead.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"text/template"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	reconcileload "github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/render")

// newDB opens an in-memory DuckDB session, closed with the test.
func newDB(t *testing.T) *duck.DB {
	t.Helper()
	db, err := duck.Open(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// load creates table name with the given columns ("id VARCHAR, amount
// VARCHAR") plus the provenance columns of package sources, one row per
// element of rows (nil is NULL, a string a text literal, anything else as
// printed), the way a source loads it: __file name.csv, __line from 2.
func load(t *testing.T, db *duck.DB, name, cols string, rows ...[]any) {
	t.Helper()
	ctx := context.Background()
	if err := db.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (%s, __file VARCHAR, __line BIGINT, __row BIGINT)", duck.Ident(name), cols)); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		vals := make([]string, 0, len(r)+3)
		for _, v := range r {
			switch v := v.(type) {
			case nil:
				vals = append(vals, "NULL")
			case string:
				vals = append(vals, duck.Literal(v))
			default:
				vals = append(vals, fmt.Sprint(v))
			}
		}
		vals = append(vals, duck.Literal(name+".csv"), fmt.Sprint(i+2), fmt.Sprint(i+1))
		if err := db.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES (%s)", duck.Ident(name), strings.Join(vals, ", "))); err != nil {
			t.Fatal(err)
		}
	}
}

// query returns the rows of q as text, NULL as "NULL", columns joined by
// "|".
func query(t *testing.T, db *duck.DB, q string) []string {
	t.Helper()
	_, rows, err := db.Strings(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		vals := make([]string, len(r))
		for i, v := range r {
			vals[i] = "NULL"
			if v != nil {
				vals[i] = *v
			}
		}
		out = append(out, strings.Join(vals, "|"))
	}
	return out
}

func builtin(t *testing.T) []*checks.Check {
	t.Helper()
	all, err := checks.Load(queries.FS)
	if err != nil {
		t.Fatal(err)
	}
	return all
}

func find(t *testing.T, all []*checks.Check, id string) *checks.Check {
	t.Helper()
	for _, c := range all {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s", id)
	return nil
}

const header = "-- check: x\n-- assertion: accuracy\n-- description: d\n"

func TestLoadHeaderKeys(t *testing.T) {
	fsys := fstest.MapFS{"010_x.sql": {Data: []byte(header +
		"-- requires: id, measures\n-- severity: info\n-- chart: balance\n-- finding: replay\n-- notes: partial_null_ids\n" +
		"-- columns: checkpoint_ids=checkpoints, source_*=source,\n-- columns: *_diff=difference\nSELECT 1 AS a\n")}}
	all, err := checks.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	c := all[0]
	want := []checks.ColumnRole{{Name: "checkpoint_ids", Role: "checkpoints"}, {Name: "source_*", Role: "source"}, {Name: "*_diff", Role: "difference"}}
	if c.ID != "x" || c.Chart != checks.ChartBalance || c.Finding != checks.FindingReplay || !c.Info ||
		!slices.Equal(c.Notes, []string{checks.NotePartialNullIDs}) || !slices.Equal(c.Roles, want) ||
		!slices.Equal(c.Requires, []checks.Requirement{checks.NeedID, checks.NeedMeasures}) {
		t.Errorf("parsed %+v", c)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct{ name, extra, want string }{
		{"unknown key", "-- chrat: balance\n", `010_x.sql:4: unknown header key "chrat"`},
		{"unknown chart", "-- chart: pie\n", `010_x.sql:4: chart "pie": want balance, reperformance, replayed_keys`},
		{"unknown finding", "-- finding: loss\n", `010_x.sql:4: finding "loss": want replay`},
		{"unknown note", "-- notes: partial_null_ids, other\n", `010_x.sql:4: notes "other"`},
		{"unknown table read", "-- reads: id_count\n", `010_x.sql:4: reads "id_count": want id_counts`},
		{"unknown role", "-- columns: a=source, b=amount\n", `010_x.sql:4: columns "b=amount": role "amount": want checkpoints, column, difference`},
		{"no role", "-- columns: a\n", `010_x.sql:4: columns "a": want column=role`},
		{"two stars", "-- columns: *_*=source\n", `a pattern has one *`},
		{"a column twice", "-- columns: a=source\n-- columns: a=sink\n", `010_x.sql:4: columns: a is given a role twice`},
		{"id not the file name", "", `header says check "x"; it must equal the file name "y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "010_x.sql"
			if tt.extra == "" {
				name = "010_y.sql"
			}
			_, err := checks.Load(fstest.MapFS{name: {Data: []byte(header + tt.extra + "SELECT 1\n")}})
			if !errors.Is(err, checks.ErrLoad) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrLoad containing %q", err, tt.want)
			}
		})
	}
}

// Every built-in check carries the keys its consumers rely on; a check
// file that loses one (or a renamed column that loses its role, see
// TestRunColumnRoles) would silently drop a chart or an attribution.
func TestBuiltinHeaderKeys(t *testing.T) {
	got := map[string]string{}
	for _, c := range builtin(t) {
		got[c.ID] = fmt.Sprintf("chart=%s finding=%s notes=%v", c.Chart, c.Finding, c.Notes)
	}
	want := map[string]string{
		"null_ids":                 "chart= finding= notes=[partial_null_ids]",
		"missing_ids":              "chart= finding= notes=[partial_null_ids]",
		"unexpected_ids":           "chart= finding= notes=[partial_null_ids]",
		"duplicate_ids":            "chart=replayed_keys finding= notes=[partial_null_ids]",
		"duplicate_postings":       "chart= finding= notes=[]",
		"population":               "chart= finding= notes=[]",
		"value_mismatches":         "chart= finding= notes=[partial_null_ids]",
		"normalized_matches":       "chart= finding= notes=[partial_null_ids]",
		"normalized_collisions":    "chart= finding= notes=[]",
		"row_count_balance":        "chart=balance finding= notes=[]",
		"sum_balance":              "chart=balance finding= notes=[]",
		"key_checkpoint_conflicts": "chart=replayed_keys finding=replay notes=[]",
		"duplicate_keys":           "chart=replayed_keys finding=replay notes=[]",
		"reperformance_mismatches": "chart=reperformance finding=replay notes=[]",
		"missing_keys":             "chart= finding=replay notes=[]",
		"unexpected_keys":          "chart= finding=replay notes=[]",
		"early_writes":             "chart= finding=replay notes=[]",
		"superseded_emissions":     "chart= finding= notes=[]",
		"bad_records":              "chart= finding= notes=[]",
		"commit_history":           "chart= finding= notes=[]",
		"commit_history_info":      "chart= finding= notes=[]",
		"duplicate_balance_rows":   "chart= finding= notes=[]",
		"roll_forward":             "chart=roll_forward finding= notes=[]",
		"roll_forward_changes":     "chart= finding= notes=[]",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %s, want %s", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d built-in checks, want %d", len(got), len(want))
	}
}

// recordColumns exercise every template branch of the record checks: a
// composite id, two measures of different scales, a group, a checkpoint, a
// logical key, a normalised text column, a normalised id column and a
// normalised group column (compared too), absolute, relative and duration
// tolerances of compared columns (posted_at zoned in the source, zone-less
// in the sink, read in Asia/Shanghai), a balance tolerance and the
// columns of a posting (duplicates:; posted_at typed differently in the
// two inputs).
func recordColumns(t *testing.T) checks.Columns {
	tol := func(s string) checks.Tolerance {
		v, err := spec.ParseTolerance(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return checks.Columns{ID: []string{"entry_id", "leg"}, Measures: []string{"amount", "fee"}, GroupBy: []string{"account"},
		Checkpoint: "checkpoint_id", LogicalKey: []string{"entry_id", "leg"},
		Duplicates:       []string{"account", "amount", "posted_at"},
		Normalize:        map[string][]string{"memo": {"trim", "casefold"}, "entry_id": {"trim"}, "account": {"trim", "strip_leading_zeros"}},
		Tolerance:        map[string]checks.Tolerance{"amount": tol("0.001"), "fee": tol("0.1%"), "posted_at": tol("2s")},
		BalanceTolerance: map[string]checks.Tolerance{"amount": tol("0.01")},
		SinkZone:         "Asia/Shanghai"}
}

// recordParams are the Params Prepare gives recordColumns over
// recordTables.
func recordParams(t *testing.T) *checks.Params {
	db := newDB(t)
	recordTables(t, db)
	p, _, err := checks.Prepare(context.Background(), db, recordColumns(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// replaySpec re-performs a sliding 10-minute window every 5 minutes per
// region, with a checkpoint, a watermark and last_by emissions.
func replaySpec(t *testing.T) *spec.Spec {
	return &spec.Spec{Reperform: &spec.Reperform{EventTime: "event_time", Window: window("10m", "5m", ""), WindowEnd: "window_end",
		GroupBy: []string{"region"}, Aggregates: aggs(t, "total", "sum(amount)", "n", "count(*)")},
		Checkpoint: "checkpoint_id", Watermark: "watermark", Emission: &spec.Emission{LastBy: "emit_seq"}}
}

func replayParams(t *testing.T) *checks.Params {
	s := replaySpec(t)
	r := &checks.Replay{GroupBy: s.Reperform.GroupBy, Window: s.Reperform.Window, WindowColumn: "window_end", WindowEdge: "end",
		EventTime: "event_time", Watermark: "watermark", LastBy: "emit_seq", Checkpoint: "checkpoint_id", Zone: "UTC", Restarts: 1}
	for _, a := range s.Reperform.Aggregates {
		typ := "DECIMAL(38,2)"
		if a.Func == "count" {
			typ = "DECIMAL(38,0)"
		}
		r.Aggregates = append(r.Aggregates, checks.ReplayAggregate{Column: a.Column, Expr: a.String(), Type: typ, Agg: a})
	}
	return &checks.Params{Checkpoint: "checkpoint_id", LogicalKey: r.KeyColumns(), Replay: r}
}

// compare checks got against the golden file path, rewriting it with
// -update.
func compare(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if string(want) != got {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(got, "\n")
		for i := 0; i < max(len(wl), len(gl)); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Fatalf("%s differs (go test ./checks/ -run %s -update rewrites it); first difference at line %d:\n-want %q\n+got  %q", path, t.Name(), i+1, w, g)
			}
		}
	}
}

// The SQL each built-in check renders for given Params, as golden files:
// a change to a check file or a helper shows up as a diff to review.
func TestRenderGolden(t *testing.T) {
	// idcounts: the checks that read table id_counts, as Run renders them
	// once it has built it (record: as they render without it).
	counted := recordParams(t)
	counted.IDCounts = true
	for _, tc := range []struct {
		kind string
		p    *checks.Params
	}{{"record", recordParams(t)}, {"replay", replayParams(t)}, {"idcounts", counted}, {"balance", ledgerParams(t)}} {
		for _, c := range builtin(t) {
			if !c.Applies(tc.p) || len(c.Missing(tc.p)) > 0 || tc.kind == "idcounts" && !slices.Contains(c.Reads, checks.ReadsIDCounts) {
				continue
			}
			t.Run(tc.kind+"/"+c.ID, func(t *testing.T) {
				sql, err := c.Render(tc.p)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, filepath.Join("testdata", "render", tc.kind, c.ID+".sql"), sql)
			})
		}
	}
}

// Prepare compares an id typed BIGINT in the source and text in the sink
// as text (a text "007" is not the number 7), makes an empty text id NULL
// on both sides, and gives each measure the one exact type that holds every
// value of both inputs: 1.5 and 12.345 need DECIMAL(…,3), and an amount of
// 16 integer digits with 3 fraction digits no longer fits DECIMAL(18,s).
func TestPrepare(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	load(t, db, "source", "id BIGINT, amount VARCHAR, fee VARCHAR",
		[]any{1, "1.5", "0.10"}, []any{7, "12.345", "0.20"}, []any{8, nil, "0.30"})
	load(t, db, "sink", "id VARCHAR, amount DECIMAL(5,1), fee VARCHAR",
		[]any{"1", 1.5, "0.10"}, []any{"007", 12.3, "1234567890123456.000"}, []any{"", 0, "0"})
	p, notes, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id"}, Measures: []string{"amount", "fee"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.MeasureTypes["amount"] != "DECIMAL(38,3)" || p.MeasureTypes["fee"] != "DECIMAL(38,3)" {
		t.Errorf("measure types %v", p.MeasureTypes)
	}
	for _, table := range []string{"source", "sink"} {
		got := query(t, db, "SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE table_name = '"+table+"' AND column_name IN ('id', 'amount', 'fee') ORDER BY ordinal_position")
		if want := []string{"id VARCHAR", "amount DECIMAL(18,3)", "fee DECIMAL(38,3)"}; !slices.Equal(got, want) {
			t.Errorf("%s columns %v, want %v", table, got, want)
		}
	}
	if got := query(t, db, "SELECT coalesce(id, 'NULL') || ' ' || coalesce(CAST(amount AS VARCHAR), 'NULL') FROM sink ORDER BY __row"); !slices.Equal(got, []string{"1 1.500", "007 12.300", "NULL 0.000"}) {
		t.Errorf("sink after Prepare: %v", got)
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{"column id is BIGINT in the source and VARCHAR in the sink: compared as text",
		"column id: 1 empty value(s) compared as NULL", "measure amount compared as DECIMAL(18,3), summed as DECIMAL(38,3)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes lack %q:\n%s", want, joined)
		}
	}
}

func TestPrepareErrors(t *testing.T) {
	tests := []struct {
		name, srcCols, sinkCols string
		src, sink               []any
		cols                    checks.Columns
		is                      error
		want                    string
	}{
		{"not a decimal", "id VARCHAR, amount VARCHAR", "id VARCHAR, amount VARCHAR", []any{"a", "12,50"}, []any{"a", "1"},
			checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}}, checks.ErrValue, `source.csv:2: column amount: value "12,50" in the source is not a decimal number`},
		{"an exponent", "id VARCHAR, amount VARCHAR", "id VARCHAR, amount VARCHAR", []any{"a", "1"}, []any{"a", "1e3"},
			checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}}, checks.ErrValue, `sink.csv:2: column amount: value "1e3" in the sink`},
		{"floating point", "id VARCHAR, amount DOUBLE", "id VARCHAR, amount VARCHAR", []any{"a", 1.5}, []any{"a", "1.5"},
			checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}}, checks.ErrColumn, "measure amount is DOUBLE (binary floating point) in the source"},
		{"a missing column", "id VARCHAR, Amount VARCHAR", "id VARCHAR, amount VARCHAR", []any{"a", "1"}, []any{"a", "1"},
			checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}}, checks.ErrColumn, `column "amount" (from measures) not found in the source; its columns are: id, Amount (did you mean "Amount"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := newDB(t)
			load(t, db, "source", tt.srcCols, tt.src)
			load(t, db, "sink", tt.sinkCols, tt.sink)
			_, _, err := checks.Prepare(context.Background(), db, tt.cols)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %v containing %q", err, tt.is, tt.want)
			}
		})
	}
}

// Totals are exact: 0.1 + 0.2 is 0.3 (float64 gives 0.30000000000000004),
// distinct ids leave out a NULL id and count a composite id with a NULL
// part NULL-safely (two rows (A, NULL) are one id).
func TestComputeTotals(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, leg VARCHAR, amount VARCHAR",
		[]any{"A", nil, "0.1"}, []any{"A", nil, "0.2"}, []any{"B", "1", "0.30"}, []any{nil, nil, "5"})
	load(t, db, "sink", "id VARCHAR, leg VARCHAR, amount VARCHAR", []any{"A", nil, "0.3"})
	p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id", "leg"}, Measures: []string{"amount"}})
	if err != nil {
		t.Fatal(err)
	}
	tot, err := checks.ComputeTotals(ctx, db, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := checks.Totals{SourceRows: 4, SinkRows: 1, SourceDistinctIDs: 2, SinkDistinctIDs: 1,
		Measures: []checks.MeasureTotal{{Name: "amount", Type: "DECIMAL(38,2)", SourceSum: "5.60", SinkSum: "0.30", Difference: "-5.30"}}}
	if fmt.Sprint(*tot) != fmt.Sprint(want) {
		t.Errorf("totals %+v, want %+v", *tot, want)
	}
}

// The distinct ids counted from duplicate_ids' rows (totals: repeated_ids)
// are the distinct ids counted directly, on inputs where a naive count
// differs: an id on three rows, an empty id (NULL after preparation) and a
// NULL id on several rows (left out, not one id), a composite id whose NULL
// part repeats ((C, NULL) twice is one id), ids repeated on both sides.
func TestTotalsFromRepeatedIDs(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	cols := "id VARCHAR, leg VARCHAR, amount VARCHAR"
	load(t, db, "source", cols,
		[]any{"A", "1", "1"}, []any{"A", "1", "1"}, []any{"A", "1", "2"}, []any{"B", "1", "1"},
		[]any{"C", nil, "1"}, []any{"C", nil, "1"}, []any{"", "", "1"}, []any{"", "", "1"}, []any{nil, nil, "1"}, []any{nil, nil, "1"})
	load(t, db, "sink", cols,
		[]any{"A", "1", "1"}, []any{"B", "1", "1"}, []any{"B", "1", "1"}, []any{"B", "2", "1"}, []any{"C", nil, "1"},
		[]any{"D", "1", "1"}, []any{"D", "1", "1"}, []any{"D", "1", "1"}, []any{nil, nil, "1"})
	p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id", "leg"}, Measures: []string{"amount"}})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := checks.ComputeTotals(ctx, db, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	dup := find(t, builtin(t), "duplicate_ids")
	if dup.Totals != checks.TotalsRepeatedIDs {
		t.Fatalf("duplicate_ids says totals %q, want %q", dup.Totals, checks.TotalsRepeatedIDs)
	}
	outs, err := checks.Run(ctx, db, []*checks.Check{dup}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	derived, err := checks.ComputeTotals(ctx, db, p, outs)
	if err != nil {
		t.Fatal(err)
	}
	// source: (A,1) (B,1) (C,NULL); sink: (A,1) (B,1) (B,2) (C,NULL) (D,1).
	if direct.SourceDistinctIDs != 3 || direct.SinkDistinctIDs != 5 {
		t.Errorf("distinct ids counted directly: source %d, sink %d; want 3 and 5", direct.SourceDistinctIDs, direct.SinkDistinctIDs)
	}
	if fmt.Sprint(*derived) != fmt.Sprint(*direct) {
		t.Errorf("totals from duplicate_ids %+v, counted directly %+v", *derived, *direct)
	}
	// With null_ids too, the rows with an id are the rows less its rows
	// (("",""), (NULL,NULL) twice each in the source, one (NULL,NULL) in the
	// sink; (C,NULL) has an id): the same totals again.
	nulls := find(t, builtin(t), "null_ids")
	if nulls.Totals != checks.TotalsNullIDs {
		t.Fatalf("null_ids says totals %q, want %q", nulls.Totals, checks.TotalsNullIDs)
	}
	outs2, err := checks.Run(ctx, db, []*checks.Check{nulls, dup}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if outs2[0].Exceptions != 5 {
		t.Fatalf("null_ids found %d rows, want 5", outs2[0].Exceptions)
	}
	both, err := checks.ComputeTotals(ctx, db, p, outs2)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(*both) != fmt.Sprint(*direct) {
		t.Errorf("totals from null_ids and duplicate_ids %+v, counted directly %+v", *both, *direct)
	}
	// A check that says totals: repeated_ids (or null_ids) without the
	// columns is refused.
	outs2[0].Columns = outs2[0].Columns[:1]
	if _, err := checks.ComputeTotals(ctx, db, p, outs2); err == nil || !strings.Contains(err.Error(), "totals: null_ids but its rows have no column side") {
		t.Errorf("err = %v, want the missing column named", err)
	}
	outs[0].Columns = outs[0].Columns[:1]
	if _, err := checks.ComputeTotals(ctx, db, p, outs); err == nil || !strings.Contains(err.Error(), "totals: repeated_ids but its rows have no column") {
		t.Errorf("err = %v, want the missing column named", err)
	}
}

// recordTables loads a source and a sink with every column recordColumns
// names: entry E2 is missing from the sink, E3 written twice under
// checkpoints 1 and 2, E4 has a NULL leg on both sides and an amount and a
// posting time beyond tolerance, E5 is unexpected; E1's fee and posting
// time differ within tolerance and its memo only in case and spaces.
func recordTables(t *testing.T, db *duck.DB) {
	cols := "entry_id VARCHAR, leg VARCHAR, account VARCHAR, amount VARCHAR, fee VARCHAR, memo VARCHAR, "
	load(t, db, "source", cols+"posted_at TIMESTAMPTZ, checkpoint_id BIGINT",
		[]any{"E1", "a", "ACC-1", "10.00", "0.1000", "paid", "2026-01-01 10:00:00+00", nil},
		[]any{"E2", "a", "ACC-1", "5.00", "0.2000", "paid", "2026-01-01 10:30:00+00", nil},
		[]any{"E3", "a", "ACC-2", "7.50", "0.3000", "open", "2026-01-01 11:00:00+00", nil},
		[]any{"E4", nil, "ACC-2", "1.00", "0", "open", "2026-01-01 12:00:00+00", nil})
	load(t, db, "sink", cols+"posted_at TIMESTAMP, checkpoint_id BIGINT",
		[]any{"E1", "a", "ACC-1", "10.00", "0.1001", "Paid ", "2026-01-01 18:00:01", 1},
		[]any{"E3", "a", "ACC-2", "7.50", "0.3000", "open", "2026-01-01 19:00:00", 1},
		[]any{"E3", "a", "ACC-2", "7.50", "0.3000", "open", "2026-01-01 19:00:00", 2},
		[]any{"E4", nil, "ACC-2", "1.01", "0", "open", "2026-01-01 20:00:05", 2},
		[]any{"E5", "b", "ACC-1", "3.00", "0", "x", "2026-01-01 21:00:00", 2})
}

func outcomeOf(t *testing.T, outs []*checks.Outcome, id string) *checks.Outcome {
	t.Helper()
	for _, o := range outs {
		if o.ID == id {
			return o
		}
	}
	t.Fatalf("no outcome %s", id)
	return nil
}

// declared records, per check, the header-named columns seen with their
// role in some run (TestRunColumnRoles: records, TestSummarizeReplay:
// windows), for TestDeclaredColumnsAppear.
var declared = map[string]map[string]bool{}

// checkDeclaredRoles checks that each column o returns which c's header
// names has that role, and records it as seen.
func checkDeclaredRoles(t *testing.T, c *checks.Check, o *checks.Outcome) {
	t.Helper()
	if declared[c.ID] == nil {
		declared[c.ID] = map[string]bool{}
	}
	for _, r := range c.Roles {
		if strings.Contains(r.Name, "*") {
			continue
		}
		switch got := roleOf(o, r.Name); {
		case got == "absent":
		case strings.HasPrefix(got, r.Role+"/"):
			declared[c.ID][r.Name] = true
		default:
			t.Errorf("%s: column %s: %s, want role %s", o.ID, r.Name, got, r.Role)
		}
	}
}

// Every column a built-in check's header gives a role is returned by the
// check in the record or in the windowed configuration: a column renamed in
// the SELECT but not in "-- columns:" fails here.
func TestDeclaredColumnsAppear(t *testing.T) {
	if !t.Run("records", TestRunColumnRoles) || !t.Run("windows", TestSummarizeReplay) || !t.Run("balances", TestBalanceControlChecks) ||
		!t.Run("roll-forward", TestRollForwardChecks) {
		return
	}
	for _, c := range builtin(t) {
		for _, r := range c.Roles {
			if !strings.Contains(r.Name, "*") && !declared[c.ID][r.Name] {
				t.Errorf("%s: -- columns: names %s, which the check never returns", c.ID, r.Name)
			}
		}
	}
}

func roleOf(o *checks.Outcome, name string) string {
	for _, c := range o.Columns {
		if c.Name == name {
			return c.Role + "/" + c.Measure
		}
	}
	return "absent"
}

// Run keeps every exception in its session table, sorted, with its count
// and typed columns with roles: every column a check's header
// names gets its role, and the spec's id, group and key columns theirs.
// Renaming a column in a check file without its "-- columns:" entry fails
// here instead of silently dropping a chart.
func TestRunColumnRoles(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	recordTables(t, db)
	all := builtin(t)
	p, _, err := checks.Prepare(ctx, db, recordColumns(t))
	if err != nil {
		t.Fatal(err)
	}
	// A sink with uncommitted files: the ids of their rows label findings.
	if err := db.Exec(ctx, "CREATE TABLE sink_uncommitted AS SELECT entry_id, leg, '.part-0.inprogress.x' AS __file, CAST(1 AS BIGINT) AS __line FROM source"); err != nil {
		t.Fatal(err)
	}
	p.Uncommitted = true
	own, err := checks.Load(fstest.MapFS{"900_x.sql": {Data: []byte(header + "-- requires: id\nSELECT entry_id, leg, account, checkpoint_id, amount AS sink_amount FROM sink\n")}})
	if err != nil {
		t.Fatal(err)
	}
	// Run in an empty working folder: it must write nothing there.
	dir := t.TempDir()
	outs, err := func() ([]*checks.Outcome, error) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if err := os.Chdir(dir); err != nil {
			return nil, err
		}
		defer os.Chdir(wd)
		return checks.Run(ctx, db, append(all, own...), p, nil)
	}()
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Run wrote %d file(s) into the working folder", len(ents))
	}
	x := outs[len(outs)-1]
	outs = outs[:len(outs)-1]
	if got := fmt.Sprint(x.Columns); got != "[{entry_id VARCHAR id } {leg VARCHAR id } {account VARCHAR group } {checkpoint_id BIGINT checkpoints } {sink_amount DECIMAL(18,2)  }]" {
		t.Errorf("spec roles of a check of its own (a pattern-like name gets no role without -- columns:): %s", got)
	}
	for _, o := range outs {
		if o.Status == checks.Skipped {
			t.Errorf("%s skipped: %s", o.ID, o.SkipReason)
			continue
		}
		checkDeclaredRoles(t, find(t, all, o.ID), o)
		for _, id := range []string{"entry_id", "leg"} {
			if got := roleOf(o, id); got != "absent" && got != "id/" {
				t.Errorf("%s: %s is %s, want the id role", o.ID, id, got)
			}
		}
		if got := roleOf(o, "account"); got != "absent" && got != "group/" {
			t.Errorf("%s: account is %s, want the group role", o.ID, got)
		}
		if o.Table == "" || o.File != "" || o.SQL == "" || strings.Contains(o.SQL, "-- columns:") || !strings.Contains(o.SQL, "-- check: "+o.ID) {
			t.Errorf("%s: table %q, file %q, SQL:\n%s", o.ID, o.Table, o.File, o.SQL)
		}
	}
	sum := outcomeOf(t, outs, "sum_balance")
	for name, want := range map[string]string{"source_amount": "source/amount", "sink_fee": "sink/fee", "difference_amount": "difference/amount"} {
		if got := roleOf(sum, name); got != want {
			t.Errorf("sum_balance %s: %s, want %s", name, got, want)
		}
	}
	if got := roleOf(outcomeOf(t, outs, "missing_ids"), "source_rows"); got != "source/" {
		t.Errorf("missing_ids source_rows: %s, want a row count of role source", got)
	}
	if c, _ := sum.Column(checks.RoleDifference, "fee"); c.Type != "DECIMAL(38,4)" {
		t.Errorf("sum_balance %s is %s, want DECIMAL(38,4)", c.Name, c.Type)
	}
	// E1's fee (0.0001 ≤ 0.1% of 0.1000) and posting time (1 s ≤ 2 s) are
	// within tolerance; E4's amount (0.01 > 0.001) and posting time (5 s)
	// are not.
	vm := outcomeOf(t, outs, "value_mismatches")
	if vm.Exceptions != 2 || vm.WithinTolerance == nil || *vm.WithinTolerance != 2 {
		t.Errorf("value_mismatches: %d exceptions, %v within tolerance, want 2 and 2: %v", vm.Exceptions, vm.WithinTolerance, query(t, db, "SELECT * FROM "+duck.Ident(vm.Table)))
	}
	if got := fmt.Sprint(vm.Tolerances); got != "[{amount 0.001} {fee 0.1%} {posted_at 2s}]" {
		t.Errorf("value_mismatches tolerances %s", got)
	}
	if got := query(t, db, "SELECT entry_id, \"column\", difference, tolerance, within_tolerance FROM "+duck.Ident(vm.Table)); !slices.Equal(got, []string{
		"E1|fee|0.0001|0.1%|true", "E1|posted_at|00:00:01|2s|true", "E4|amount|0.01|0.001|false", "E4|posted_at|00:00:05|2s|false"}) {
		t.Errorf("value_mismatches rows %q", got)
	}
	if nm := outcomeOf(t, outs, "normalized_matches"); nm.Status != checks.Info || nm.Exceptions != 1 {
		t.Errorf("normalized_matches: %s %d, want info 1", nm.Status, nm.Exceptions)
	}
	// Per group and in total: ACC-1 and ACC-2 are off by more than the
	// tolerance, and so is the total.
	if got := query(t, db, "SELECT coalesce(account, 'NULL'), total, difference_amount, tolerance_amount, within_tolerance FROM "+duck.Ident(sum.Table)); !slices.Equal(got, []string{
		"ACC-1|false|-2.00|0.01|false", "ACC-2|false|7.51|0.01|false", "NULL|true|5.51|0.01|false"}) {
		t.Errorf("sum_balance rows %q", got)
	}

	dup := outcomeOf(t, outs, "duplicate_ids")
	ck, _ := dup.Column(checks.RoleCheckpoints, "")
	if dup.Status != checks.Fail || dup.Exceptions != 1 || ck.Name == "" || !slices.Equal(query(t, db, "SELECT "+duck.Ident(ck.Name)+" FROM "+duck.Ident(dup.Table)), []string{"1;2"}) {
		t.Errorf("duplicate_ids: %s %d, checkpoints column %q, %v", dup.Status, dup.Exceptions, ck.Name, query(t, db, "SELECT * FROM "+duck.Ident(dup.Table)))
	}
	if got := query(t, db, "SELECT entry_id FROM "+duck.Ident(outcomeOf(t, outs, "missing_ids").Table)); !slices.Equal(got, []string{"E2"}) {
		t.Errorf("missing_ids table: %v", got)
	}
	// The partial-NULL note goes to the checks whose header asks for it.
	for _, o := range outs {
		noted := len(o.Notes) > 0 && strings.Contains(o.Notes[0], "1 source and 1 sink rows have a composite id with some NULL parts")
		if want := slices.Contains(find(t, all, o.ID).Notes, checks.NotePartialNullIDs); noted != want {
			t.Errorf("%s: notes %v, want the partial-NULL note: %v", o.ID, o.Notes, want)
		}
	}
}

// replayTables loads tiny events and a windowed sink for replaySpec. The
// 00:10 window of region A is written under checkpoint 4, then again
// under 6 (each row right); B's 00:10 emission 1 is superseded by emission
// 2, which is short by 1.00; C's 00:20 window has no event behind it.
func replayTables(t *testing.T, db *duck.DB) {
	load(t, db, "source", "event_id VARCHAR, region VARCHAR, amount VARCHAR, event_time VARCHAR",
		[]any{"1", "A", "1.50", "2026-11-26T00:01:00Z"}, []any{"2", "A", "2.00", "2026-11-26T00:07:00Z"},
		[]any{"3", "B", "4.00", "2026-11-26 00:02:00"}, []any{"4", "B", "1.00", "1795651680000"})
	load(t, db, "sink", "window_end VARCHAR, region VARCHAR, total VARCHAR, n BIGINT, checkpoint_id BIGINT, watermark VARCHAR, emit_seq BIGINT",
		[]any{"2026-11-26T00:05:00Z", "A", "1.50", 1, 3, "2026-11-26T00:05:01Z", 1},
		[]any{"2026-11-26T00:10:00Z", "A", "3.50", 2, 4, "2026-11-26T00:10:01Z", 1},
		[]any{"2026-11-26T00:10:00Z", "A", "3.50", 2, 6, "2026-11-26T00:10:01Z", 1},
		[]any{"2026-11-26T00:15:00Z", "A", "2.00", 1, 6, "2026-11-26T00:15:01Z", 1},
		[]any{"2026-11-26T00:05:00Z", "B", "4.00", 1, 3, "2026-11-26T00:05:01Z", 1},
		[]any{"2026-11-26T00:10:00Z", "B", "3.00", 1, 3, "2026-11-26T00:09:00Z", 1},
		[]any{"2026-11-26T00:10:00Z", "B", "4.00", 2, 6, "2026-11-26T00:10:01Z", 2},
		[]any{"2026-11-26T00:15:00Z", "B", "1.00", 1, 6, "2026-11-26T00:15:01Z", 1},
		[]any{"2026-11-26T00:20:00Z", "C", "5.00", 1, 9, "2026-11-26T00:20:01Z", 1})
}

// PrepareReplay assigns each event to its two sliding windows on UTC
// instants — an ISO time with Z, one without a zone (read in UTC) and epoch
// milliseconds alike — and re-performs each window and group exactly.
func TestPrepareReplay(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	replayTables(t, db)
	r, notes, err := checks.PrepareReplay(ctx, db, replaySpec(t))
	if err != nil {
		t.Fatal(err)
	}
	got := query(t, db, "SELECT __row || ' ' || strftime(__window_start, '%H:%M') || '-' || strftime(__window_end, '%H:%M') FROM replay_events ORDER BY __row, __window_start")
	want := []string{"1 23:55-00:05", "1 00:00-00:10", "2 00:05-00:15", "2 00:00-00:10", "3 23:55-00:05", "3 00:00-00:10", "4 00:00-00:10", "4 00:05-00:15"}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("replay_events %v, want %v", got, want)
	}
	got = query(t, db, `SELECT strftime(__window_end, '%H:%M') || ' ' || region || ' ' || total || ' ' || n || ' ' || __events FROM expected ORDER BY ALL`)
	want = []string{"00:05 A 1.50 1 1", "00:05 B 4.00 1 1", "00:10 A 3.50 2 2", "00:10 B 5.00 2 2", "00:15 A 2.00 1 1", "00:15 B 1.00 1 1"}
	if !slices.Equal(got, want) {
		t.Errorf("expected %v, want %v", got, want)
	}
	got = query(t, db, `SELECT __row || ' ' || __epoch || ' ' || __compared FROM replay_sink ORDER BY __row`)
	if want := []string{"1 3 true", "2 4 true", "3 6 true", "4 6 true", "5 3 true", "6 3 false", "7 6 true", "8 6 true", "9 9 true"}; !slices.Equal(got, want) {
		t.Errorf("replay_sink %v, want %v", got, want)
	}
	if len(r.SQL) != 3 || !strings.HasPrefix(r.SQL[0], `CREATE OR REPLACE VIEW "replay_events" AS`) {
		t.Errorf("replay SQL: %d statements:\n%s", len(r.SQL), strings.Join(r.SQL, "\n\n"))
	}
	// The statements as the evidence keeps them (queries/_replay_tables.sql).
	compare(t, filepath.Join("testdata", "render", "replay", "_replay_tables.sql"), strings.Join(r.SQL, ";\n\n")+";\n")
	if j := strings.Join(notes, "\n"); !strings.Contains(j, "source event_time: 1 value(s) written without a zone, read as wall-clock time in UTC") {
		t.Errorf("notes:\n%s", j)
	}
}

func TestPrepareReplayErrors(t *testing.T) {
	for _, tt := range []struct {
		name, value, zone string
		is                error
		want              string
	}{
		{"not a timestamp", "26/11/2026 00:01", "", checks.ErrTime, `source.csv:3: column event_time: value "26/11/2026 00:01" in the source is not a timestamp`},
		{"unknown zone", "2026-11-26T00:01:00Z", "Mars/Olympus", spec.ErrInvalid, `time_zone "Mars/Olympus" is not a zone DuckDB knows`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := newDB(t)
			load(t, db, "source", "region VARCHAR, amount VARCHAR, event_time VARCHAR", []any{"A", "1", "2026-11-26T00:00:00Z"}, []any{"A", "1", tt.value})
			load(t, db, "sink", "window_end VARCHAR, region VARCHAR, total VARCHAR, n BIGINT, checkpoint_id BIGINT, watermark VARCHAR, emit_seq BIGINT",
				[]any{"2026-11-26T00:05:00Z", "A", "1", 1, 1, "2026-11-26T00:05:00Z", 1})
			s := replaySpec(t)
			s.TimeZone = tt.zone
			_, _, err := checks.PrepareReplay(context.Background(), db, s)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %v containing %q", err, tt.is, tt.want)
			}
		})
	}
}

// One restart at 00:12 from checkpoint 3 (triggered 00:06), whose open
// epoch is 5: writes of checkpoints 4 and 5 were rolled back.
func restartsFixture() *restarts.Restarts {
	barrier := time.Date(2026, 11, 26, 0, 6, 0, 0, time.UTC)
	return &restarts.Restarts{Restarts: []restarts.Restart{{No: 1, Time: time.Date(2026, 11, 26, 0, 12, 0, 0, time.UTC), RestoredCheckpoint: 3,
		RestoredCheckpointTime: &barrier, OpenEpoch: 5, From: "restarts.csv"}}}
}

// The rule that a restart rewound a write, at its edges: the restored
// checkpoint itself is not replayed, restored+1 up to the open epoch is,
// a later epoch was written after the restart.
func TestRestartOfRule(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	stmts, err := checks.LoadRestarts(ctx, db, restartsFixture())
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 2 || !strings.Contains(stmts[1], "(1, 'restart 1 at 2026-11-26T00:12:00Z from checkpoint 3', make_timestamptz(1795651920000000), 3, make_timestamptz(1795651560000000), 5)") {
		t.Errorf("LoadRestarts statements:\n%s", strings.Join(stmts, "\n"))
	}
	tm := template.Must(template.New("").Funcs(checks.Funcs()).Parse(`SELECT e, coalesce({{restartof "e"}}, 'none') FROM range(2, 8) AS t(e) ORDER BY e`))
	var b strings.Builder
	if err := tm.Execute(&b, nil); err != nil {
		t.Fatal(err)
	}
	got := query(t, db, b.String())
	want := []string{"2|none", "3|none", "4|restart 1 at 2026-11-26T00:12:00Z from checkpoint 3", "5|restart 1 at 2026-11-26T00:12:00Z from checkpoint 3", "6|none", "7|none"}
	if !slices.Equal(got, want) {
		t.Errorf("restartof: %v, want %v", got, want)
	}
	if stmts, err := checks.LoadRestarts(ctx, db, nil); err != nil || len(stmts) != 1 || len(query(t, db, "SELECT * FROM restarts")) != 0 {
		t.Errorf("no restarts: %v, %v", stmts, err)
	}
}

// SummarizeReplay attributes the failed replay checks' findings to the
// restart through their columns' roles, whatever the columns are called (a
// check of its own names them w_end and who). A's doubled 00:10 window was
// first written under checkpoint 4, which the restart rewound; B's short
// value is explained by its 00:08 event in the replayed interval [00:06,
// 00:12); C's unexpected window under checkpoint 9, written after the
// restart, is explained by none.
func TestSummarizeReplay(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	replayTables(t, db)
	r, _, err := checks.PrepareReplay(ctx, db, replaySpec(t))
	if err != nil {
		t.Fatal(err)
	}
	rs := restartsFixture()
	if err := r.LoadRestarts(ctx, db, rs); err != nil {
		t.Fatal(err)
	}
	own, err := checks.Load(fstest.MapFS{"900_rewritten_rows.sql": {Data: []byte("-- check: rewritten_rows\n-- assertion: accuracy\n" +
		"-- description: Sink rows a restart rewound.\n-- requires: reperform\n-- finding: replay\n-- columns: w_end=window_end, who=restart\n" +
		"SELECT k.__window_end AS w_end, k.region, {{restartof \"k.__epoch\"}} AS who FROM replay_sink AS k WHERE {{restartof \"k.__epoch\"}} IS NOT NULL\n")}})
	if err != nil {
		t.Fatal(err)
	}
	p := &checks.Params{Checkpoint: "checkpoint_id", LogicalKey: r.KeyColumns(), Replay: r}
	outs, err := checks.Run(ctx, db, append(builtin(t), own...), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]string{}
	for _, o := range outs {
		status[o.ID] = fmt.Sprintf("%s %d", o.Status, o.Exceptions)
		if o.ID != "rewritten_rows" {
			checkDeclaredRoles(t, find(t, builtin(t), o.ID), o)
		}
	}
	for id, want := range map[string]string{"duplicate_keys": "fail 1", "reperformance_mismatches": "fail 3", "key_checkpoint_conflicts": "fail 1",
		"early_writes": "pass 0", "superseded_emissions": "info 1", "missing_keys": "pass 0", "unexpected_keys": "fail 1", "rewritten_rows": "fail 1"} {
		if status[id] != want {
			t.Errorf("%s: %s, want %s", id, status[id], want)
		}
	}
	sum, err := checks.SummarizeReplay(ctx, db, r, rs, outs)
	if err != nil {
		t.Fatal(err)
	}
	if sum.SourceEvents != 4 || sum.ExpectedKeys != 6 || sum.SinkRows != 8 || sum.SinkDistinctKeys != 7 || sum.SinkRowsPerKey != 1.1429 || sum.Emission != "last_by emit_seq" {
		t.Errorf("populations %+v", sum)
	}
	got := fmt.Sprint(sum.Restarts[0].Findings, " keys ", sum.Restarts[0].Keys, " unexplained ", sum.Unexplained, " keys ", sum.UnexplainedKeys)
	if want := "map[duplicate_keys:1 key_checkpoint_conflicts:1 reperformance_mismatches:3 rewritten_rows:1] keys 2 unexplained map[unexpected_keys:1] keys 1"; got != want {
		t.Errorf("attribution:\n got %s\nwant %s", got, want)
	}
}

// Declared types too wide together (HUGEINT: 38 integer digits; a
// DECIMAL(38,10)) are sized from the values: 30 integer digits beside 10
// fraction digits are still 40, but the fractions end in zeros, so one
// fraction digit is all the data needs and nothing is rounded.
func TestPrepareFixnumSizedFromData(t *testing.T) {
	ctx := context.Background()
	db := newDB(t)
	load(t, db, "source", "id VARCHAR, amount HUGEINT", []any{"a", "123456789012345678901234567890"}, []any{"b", 2})
	load(t, db, "sink", "id VARCHAR, amount DECIMAL(38,10)", []any{"a", "1.5000000000"}, []any{"b", 2})
	p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.MeasureTypes["amount"] != "DECIMAL(38,1)" {
		t.Errorf("measure types %v, want DECIMAL(38,1)", p.MeasureTypes)
	}
	if got := query(t, db, "SELECT CAST(amount AS VARCHAR) FROM sink ORDER BY __row"); !slices.Equal(got, []string{"1.5", "2.0"}) {
		t.Errorf("sink after Prepare: %v", got)
	}
	if got := query(t, db, "SELECT CAST(amount AS VARCHAR) FROM source ORDER BY __row"); !slices.Equal(got, []string{"123456789012345678901234567890.0", "2.0"}) {
		t.Errorf("source after Prepare: %v", got)
	}
}

// A HUGEINT measure holds 39 digits, one more than an exact DECIMAL: a
// 39-digit value is refused naming the input, file, line, column and
// value (it was DuckDB's raw cast error, with its SQL text and no line),
// and a HUGEINT whose values fit 38 digits is converted exactly.
func TestPrepareHugeintSizedFromData(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		value, want string
	}{
		{"123456789012345678901234567890123456789", `measure amount needs 39 integer and 0 fraction digits, more than the 38 an exact DECIMAL holds (the source's amount is HUGEINT, the sink's BIGINT; no value is rounded to fit): in the source, source.csv:2: column amount: value "123456789012345678901234567890123456789" has more than 38 integer digits`},
		{"12345678901234567890123456789012345678", ""},
	} {
		db := newDB(t)
		load(t, db, "source", "id VARCHAR, amount HUGEINT", []any{"a", c.value}, []any{"b", 2})
		load(t, db, "sink", "id VARCHAR, amount BIGINT", []any{"a", 1}, []any{"b", 2})
		p, _, err := checks.Prepare(ctx, db, checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}})
		if c.want != "" {
			if !errors.Is(err, checks.ErrValue) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: error %v, want ErrValue with %q", c.value, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.value, err)
		}
		if p.MeasureTypes["amount"] != "DECIMAL(38,0)" {
			t.Errorf("%s: measure types %v, want DECIMAL(38,0)", c.value, p.MeasureTypes)
		}
		if got := query(t, db, "SELECT CAST(amount AS VARCHAR) FROM source ORDER BY __row"); !slices.Equal(got, []string{c.value, "2"}) {
			t.Errorf("source after Prepare: %v", got)
		}
	}
}

// A measure value that is not a decimal number and a text compared with a
// timestamp that does not read as one stop the run (ErrValue) — unless the
// input reports bad records (bad_records: report): then each such row is
// removed from its table and listed in bad_records with its location,
// column, value and reason, and Prepare goes on with the rest.
func TestPrepareReportsBadRecords(t *testing.T) {
	ctx := context.Background()
	for _, report := range []bool{false, true} {
		db := newDB(t)
		load(t, db, "source", "id VARCHAR, amount VARCHAR, ts VARCHAR",
			[]any{"a", "1.50", "2026-01-01 10:00:00"}, []any{"b", "yo", "2026-01-01 10:00:00"}, []any{"c", "3", "217-01-01"})
		load(t, db, "sink", "id VARCHAR, amount VARCHAR, ts TIMESTAMP",
			[]any{"a", "1.50", "2026-01-01 10:00:00"}, []any{"b", "2", "2026-01-01 10:00:00"}, []any{"c", "3", "2026-01-01 10:00:00"})
		cols := checks.Columns{ID: []string{"id"}, Measures: []string{"amount"}}
		if report {
			db.SetReportsBadRecords(checks.SourceTable)
			var err error
			if cols.BadRecords, err = reconcileload.BadRecords(ctx, db, []*sources.Input{{Role: "source", ReportsBadRecords: true}}); err != nil {
				t.Fatal(err)
			}
		}
		_, _, err := checks.Prepare(ctx, db, cols)
		if !report {
			if want := `source.csv:3: column amount: value "yo" in the source is not a decimal number`; !errors.Is(err, checks.ErrValue) || !strings.Contains(err.Error(), want) {
				t.Errorf("without report: %v, want ErrValue with %q", err, want)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got, want := query(t, db, "SELECT id FROM source ORDER BY __row"), []string{"a"}; !slices.Equal(got, want) {
			t.Errorf("source rows %v, want %v", got, want)
		}
		got := query(t, db, `SELECT side || ' ' || location || ' ' || "column" || ' ' || value || ': ' || reason FROM bad_records ORDER BY location`)
		want := []string{
			"source source.csv:3 amount yo: is not a decimal number (expected digits with an optional sign and decimal point, such as -1234.50)",
			"source source.csv:4 ts 217-01-01: is not a timestamp (ISO 8601: 2024-03-01 10:00:00 or 2024-03-01T10:00:00.5, with or without a zone or offset such as +01:00 or Z) of whole microseconds (it is compared as an instant, which holds microseconds), as the comparison with the sink's TIMESTAMP needs",
		}
		if !slices.Equal(got, want) {
			t.Errorf("bad_records\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// renamedColumn finds the column DuckDB renamed because its name was taken
// ("x" → "x_1", a taken "x_1" → "x_1_1") when the name is one the check
// declares of its own (its roles, exact or a pattern, and its writes), and leaves alone
// names that an input has (an input's own "amount_1"), whose base is not
// an input's, or that the check does not declare (a query of one's own
// selecting s.a and k.a).
func TestRenamedColumn(t *testing.T) {
	cols := func(names ...string) []duck.Column {
		out := make([]duck.Column, len(names))
		for i, n := range names {
			out[i] = duck.Column{Name: n, Type: "VARCHAR"}
		}
		return out
	}
	in := func(names ...string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	roles := func(names ...string) []checks.ColumnRole {
		var out []checks.ColumnRole
		for _, n := range names {
			out = append(out, checks.ColumnRole{Name: n, Role: "r"})
		}
		return out
	}
	for _, tt := range []struct {
		cols          []duck.Column
		inputs        map[string]bool
		roles         []checks.ColumnRole
		renamed, from string
	}{
		{cols("column", "column_1", "source_value"), in("column", "amount"), roles("column", "difference"), "column_1", "column"},
		{cols("difference", "x", "difference_1"), in("difference"), roles("difference"), "difference_1", "difference"},
		{cols("a_1", "a", "a_1_1"), in("a_1"), roles("a_1"), "a_1_1", "a_1"},
		{cols("side", "side_1"), in("side", "amount"), roles("side"), "side_1", "side"},
		{cols("source_amount", "source_amount_1"), in("source_amount"), roles("source_*"), "source_amount_1", "source_amount"},
		// no clash
		{cols("entry_id", "column", "source_value"), in("entry_id", "amount"), roles("column"), "", ""},
		{cols("amount", "amount_1"), in("amount", "amount_1"), roles("amount"), "", ""},
		{cols("source_rows", "rows_2"), in("entry_id"), roles("source_rows"), "", ""},
		{cols("total", "total_1"), in("entry_id"), roles("total"), "", ""}, // a check's own two columns
		{cols("x_", "x"), in("x"), roles("x"), "", ""},
		{cols("a", "a_1", "amount", "amount_1"), in("a", "amount"), nil, "", ""}, // a query of one's own: s.a, k.a
	} {
		r, f, ok := checks.RenamedColumn(tt.cols, tt.inputs, tt.roles, nil)
		if r != tt.renamed || f != tt.from || ok != (tt.renamed != "") {
			t.Errorf("renamedColumn(%v, %v, %v) = %q, %q, %v; want %q, %q", tt.cols, tt.inputs, tt.roles, r, f, ok, tt.renamed, tt.from)
		}
	}
	// A column the check writes without a role (-- writes:) counts as its own.
	c := cols("source_value", "column", "source_value_1")
	if r, f, ok := checks.RenamedColumn(c, in("source_value"), roles("column"), []string{"source_value", "sink_value"}); !ok || r != "source_value_1" || f != "source_value" {
		t.Errorf("writes: renamedColumn = %q, %q, %v; want source_value_1, source_value", r, f, ok)
	}
	if _, _, ok := checks.RenamedColumn(c, in("source_value"), roles("column"), nil); ok {
		t.Errorf("without writes: source_value_1 refused")
	}
	// DuckDB names without case: an id Source_Value takes source_value.
	if r, f, ok := checks.RenamedColumn(cols("Source_Value", "column", "source_value_1"), in("Source_Value"), roles("column"), []string{"source_value"}); !ok || r != "source_value_1" || f != "source_value" {
		t.Errorf("case: renamedColumn = %q, %q, %v; want source_value_1, source_value", r, f, ok)
	}
}
