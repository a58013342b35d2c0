package report

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// TestCSVRowsNull: DuckDB writes NULL as nothing and the empty text as "";
// the reader tells them apart, in any field, after quoted line breaks and
// past the reader's buffer.
func TestCSVRowsNull(t *testing.T) {
	long := strings.Repeat("x", 10_000)
	in := "a,b,c\n" +
		"x,,\"\"\n" +
		"\"multi\nline\",\"\",\n" +
		"\"\",y,\n" +
		long + ",," + `""` + "\n" +
		",\"q\"\"\",\"\"\n"
	want := [][]field{
		{{text: "x"}, {null: true}, {text: ""}},
		{{text: "multi\nline"}, {text: ""}, {null: true}},
		{{text: ""}, {text: "y"}, {null: true}},
		{{text: long}, {null: true}, {text: ""}},
		{{null: true}, {text: `q"`}, {text: ""}},
	}
	rd := newCSVRows("t.csv", strings.NewReader(in))
	if h, err := rd.header(); err != nil || strings.Join(h, ",") != "a,b,c" {
		t.Fatalf("header %q, %v", h, err)
	}
	for i, w := range want {
		got, err := rd.next()
		if err != nil {
			t.Fatalf("row %d: %v", i+1, err)
		}
		for j := range w {
			if got[j] != w[j] {
				t.Errorf("row %d field %d = %+v, want %+v", i+1, j+1, got[j], w[j])
			}
		}
	}
	if _, err := rd.next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the last row: %v", err)
	}
}

// TestKindOf: the role decides before the type; the type decides, never
// the values.
func TestKindOf(t *testing.T) {
	for _, tt := range []struct {
		typ, role string
		want      Kind
	}{
		{"BIGINT", checks.RoleID, KindText}, // 007 is not 7
		{"DECIMAL(38,2)", checks.RoleGroup, KindText},
		{"BIGINT", checks.RoleCheckpoints, KindText},
		{"VARCHAR", checks.RoleKey, KindText},
		{"DECIMAL(38,2)", checks.RoleSource, KindNumber},
		{"DECIMAL(18,0)", "", KindNumber},
		{"BIGINT", "", KindNumber},
		{"HUGEINT", "", KindNumber},
		{"DOUBLE", "", KindNumber},
		{"VARCHAR", checks.RoleDifference, KindNumber}, // a re-performed figure rendered as text
		{"VARCHAR", "", KindText},                      // "5" in a VARCHAR column stays text
		{"TIMESTAMP WITH TIME ZONE", checks.RoleWindowEnd, KindTime},
		{"TIMESTAMP", "", KindTime},
		{"DATE", "", KindTime},
		{"TIMESTAMP WITH TIME ZONE", checks.RoleKey, KindText},
		{"BOOLEAN", "", KindText},
		{"INTERVAL", "", KindText},
		{"TIME", "", KindText},
		{"VARCHAR[]", "", KindText},
		{"", "", KindText}, // no type recorded (an older summary.json): text
	} {
		if got := kindOf(tt.typ, tt.role); got != tt.want {
			t.Errorf("kindOf(%q, %q) = %d, want %d", tt.typ, tt.role, got, tt.want)
		}
	}
}

// TestTyped: a value that does not read as its column's kind stays exact
// text; nothing is changed to fit.
func TestTyped(t *testing.T) {
	for _, tt := range []struct {
		f    field
		kind Kind
		want Kind
	}{
		{field{text: "-12.50"}, KindNumber, KindNumber},
		{field{text: "1e3"}, KindNumber, KindText},
		{field{text: "12,50"}, KindNumber, KindText},
		{field{text: "NaN"}, KindNumber, KindText},
		{field{text: "2026-11-26 03:00:00+00"}, KindTime, KindTime},
		{field{text: "2026-11-26"}, KindTime, KindTime},
		{field{text: "infinity"}, KindTime, KindText},
		{field{text: "0044-03-15 (BC)"}, KindTime, KindText},
		{field{text: "7"}, KindText, KindText},
		{field{null: true}, KindNumber, KindText},
	} {
		c := typed(tt.f, tt.kind)
		if c.Kind != tt.want || c.Text != tt.f.text || c.Null != tt.f.null {
			t.Errorf("typed(%+v, %d) = %+v, want kind %d and the value unchanged", tt.f, tt.kind, c, tt.want)
		}
	}
	if c := typed(field{text: "2026-03-01 05:40:00.250+00"}, KindTime); c.Time.Format("15:04:05.000 MST") != "05:40:00.250 UTC" {
		t.Errorf("instant %v", c.Time)
	}
}

// TestLegacyRoles: until the check files declare roles, the built-in
// checks' columns get theirs from the spec and the queries' output names;
// a declared role always wins.
func TestLegacyRoles(t *testing.T) {
	records := &evidence.Parameters{ID: []string{"entry_id"}, Measures: []string{"amount"}, GroupBy: []string{"account"}, LogicalKey: []string{"entry_key"}, Checkpoint: "checkpoint_id"}
	windowed := &evidence.Parameters{Reperform: &evidence.Reperform{GroupBy: []string{"user"}, Aggregates: []evidence.Aggregate{{Column: "revenue"}}}}
	for _, tt := range []struct {
		p                   *evidence.Parameters
		check, col          string
		wantRole, wantMeasr string
	}{
		{records, "missing_ids", "entry_id", checks.RoleID, ""},
		{records, "key_checkpoint_conflicts", "entry_key", checks.RoleKey, ""},
		{records, "sum_balance", "account", checks.RoleGroup, ""},
		{records, "sum_balance", "source_amount", checks.RoleSource, "amount"},
		{records, "sum_balance", "sink_amount", checks.RoleSink, "amount"},
		{records, "sum_balance", "difference_amount", checks.RoleDifference, "amount"},
		{records, "row_count_balance", "source_rows", checks.RoleSource, ""},
		{records, "row_count_balance", "difference", checks.RoleDifference, ""},
		{records, "missing_ids", "source_rows", "", ""}, // a count per id, not a balance
		{records, "duplicate_ids", "checkpoint_ids", checks.RoleCheckpoints, ""},
		{records, "duplicate_ids", "locations", checks.RoleLocation, ""},
		{records, "null_ids", "line", "", ""},
		{windowed, "duplicate_keys", "user", checks.RoleGroup, ""},
		{windowed, "duplicate_keys", "first_checkpoint", checks.RoleCheckpoints, ""},
		{windowed, "duplicate_keys", "restart", checks.RoleRestart, ""},
		{windowed, "duplicate_keys", "sink_rows", "", ""}, // the rows as text
		{windowed, "reperformance_mismatches", "window_start", checks.RoleWindowStart, ""},
		{windowed, "reperformance_mismatches", "expected", checks.RoleSource, ""},
		{windowed, "reperformance_mismatches", "sink_sum", checks.RoleSink, ""},
		{windowed, "reperformance_mismatches", "sink_rows", "", ""}, // a count of rows
		{windowed, "reperformance_mismatches", "aggregate", roleAggregate, ""},
		{windowed, "reperformance_mismatches", "finding", roleFinding, ""},
		{windowed, "missing_keys", "expected_revenue", checks.RoleSource, "revenue"},
	} {
		role, m := roleOf(&evidence.Check{ID: tt.check}, evidence.Column{Name: tt.col}, tt.p)
		if role != tt.wantRole || m != tt.wantMeasr {
			t.Errorf("%s.%s: role %q measure %q, want %q %q", tt.check, tt.col, role, m, tt.wantRole, tt.wantMeasr)
		}
	}
	if role, _ := roleOf(&evidence.Check{ID: "missing_ids"}, evidence.Column{Name: "entry_id", Role: checks.RoleLocation}, records); role != checks.RoleLocation {
		t.Errorf("declared role overridden: %q", role)
	}
}

// TestChartOf: a check file's chart wins over the built-in default.
func TestChartOf(t *testing.T) {
	if got := chartOf(&evidence.Check{ID: "sum_balance"}); got != chartBalance {
		t.Errorf("sum_balance: %q", got)
	}
	if got := chartOf(&evidence.Check{ID: "sum_balance", Chart: chartReplayedKeys}); got != chartReplayedKeys {
		t.Errorf("declared chart: %q", got)
	}
	if got := chartOf(&evidence.Check{ID: "my_check"}); got != "" {
		t.Errorf("unknown check: %q", got)
	}
}

// TestWindowedPopulation: a windowed sink's population is source events
// against sink rows (no difference), keys against keys, and the rows per
// key — never a row difference, never distinct ids.
func TestWindowedPopulation(t *testing.T) {
	v := newTestView(t, windowedFixture(t), os.DirFS(windowedDir))
	var got []string
	for _, r := range v.Population {
		got = append(got, strings.Join([]string{figure(r.Source), figure(r.Sink), figure(r.Difference)}, " "))
		if strings.Contains(r.Label, "distinct ids") {
			t.Errorf("a windowed sink has no ids: %q", r.Label)
		}
	}
	if want := "1955 26 –|24 24 0|– 1.0833 –"; strings.Join(got, "|") != want {
		t.Errorf("population %q, want %q", strings.Join(got, "|"), want)
	}
	v = newTestView(t, fixture(t), os.DirFS(fixtureDir))
	got = nil
	for _, r := range v.Population {
		got = append(got, r.Label+": "+strings.Join([]string{figure(r.Source), figure(r.Sink), figure(r.Difference)}, " "))
	}
	if want := "rows: 3000 3130 130|distinct ids: 3000 3000 0|sum of amount: 3375343.63 3527966.40 152622.77"; strings.Join(got, "|") != want {
		t.Errorf("population %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestEachRowCancelled: streaming stops at a cancelled context.
func TestEachRowCancelled(t *testing.T) {
	v := newTestView(t, fixture(t), os.DirFS(fixtureDir))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := v.EachRow(ctx, v.Checks[1], func([]Cell) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("EachRow after cancel: %v", err)
	}
}
