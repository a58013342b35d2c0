package report

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

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
		{"BIGINT", evidence.RoleID, KindText}, // 007 is not 7
		{"DECIMAL(38,2)", evidence.RoleGroup, KindText},
		{"BIGINT", evidence.RoleCheckpoints, KindText},
		{"VARCHAR", evidence.RoleKey, KindText},
		{"DECIMAL(38,2)", evidence.RoleSource, KindNumber},
		{"DECIMAL(18,0)", "", KindNumber},
		{"BIGINT", "", KindNumber},
		{"HUGEINT", "", KindNumber},
		{"DOUBLE", "", KindNumber},
		{"VARCHAR", evidence.RoleDifference, KindNumber}, // a re-performed figure rendered as text
		{"VARCHAR", "", KindText},                        // "5" in a VARCHAR column stays text
		{"TIMESTAMP WITH TIME ZONE", evidence.RoleWindowEnd, KindTime},
		{"TIMESTAMP", "", KindTime},
		{"DATE", "", KindTime},
		{"TIMESTAMP WITH TIME ZONE", evidence.RoleKey, KindText},
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

// TestRolesNotNames: the view and its charts know a check only by what its
// check file declares (Chart, and each column's Role and Measure), never by
// its id or its columns' names. A check of its own with renamed columns
// feeds the balance chart and the timeline; the same rows under a built-in
// id and the built-in column names, declaring nothing, feed neither and
// get no role.
func TestRolesNotNames(t *testing.T) {
	tz := "TIMESTAMP WITH TIME ZONE"
	ev := fstest.MapFS{
		"exceptions/my_balance.csv":   {Data: []byte("ledger,before,after,delta\nACC-01,1000.00,1250.50,250.50\nACC-02,5.00,5.00,0.00\n")},
		"queries/my_balance.sql":      {Data: []byte("SELECT 1\n")},
		"exceptions/sum_balance.csv":  {Data: []byte("account,source_amount,sink_amount,difference_amount\nACC-01,1000.00,1250.50,250.50\n")},
		"queries/sum_balance.sql":     {Data: []byte("SELECT 1\n")},
		"exceptions/my_windows.csv":   {Data: []byte("opens,closes,note\n2026-03-01 03:00:00+00,2026-03-01 04:00:00+00,late\n")},
		"queries/my_windows.sql":      {Data: []byte("SELECT 1\n")},
		"exceptions/missing_keys.csv": {Data: []byte("window_start,window_end,account\n2026-03-01 05:00:00+00,2026-03-01 06:00:00+00,ACC-01\n")},
		"queries/missing_keys.sql":    {Data: []byte("SELECT 1\n")},
	}
	declared := func() []*evidence.Check {
		return []*evidence.Check{
			withChart(checkFrom(t, ev, "my_balance", "completeness", "Sums per ledger.", []evidence.Column{
				{Type: "VARCHAR", Role: evidence.RoleGroup}, {Type: "DECIMAL(38,2)", Role: evidence.RoleSource, Measure: "amount"},
				{Type: "DECIMAL(38,2)", Role: evidence.RoleSink, Measure: "amount"}, {Type: "DECIMAL(38,2)", Role: evidence.RoleDifference, Measure: "amount"}}), evidence.ChartBalance),
			checkFrom(t, ev, "my_windows", "completeness", "Windows of my own.", []evidence.Column{
				{Type: tz, Role: evidence.RoleWindowStart}, {Type: tz, Role: evidence.RoleWindowEnd}, {Type: "VARCHAR"}}),
		}
	}
	undeclared := func() []*evidence.Check {
		return []*evidence.Check{
			checkFrom(t, ev, "sum_balance", "completeness", "Sums per account.", []evidence.Column{
				{Type: "VARCHAR"}, {Type: "DECIMAL(38,2)"}, {Type: "DECIMAL(38,2)"}, {Type: "DECIMAL(38,2)"}}),
			checkFrom(t, ev, "missing_keys", "completeness", "Windows.", []evidence.Column{{Type: tz}, {Type: tz}, {Type: "VARCHAR"}}),
		}
	}

	s := fixture(t)
	s.Checks = declared()
	v := newTestView(t, s, ev)
	var amount *BalanceSeries
	for _, bs := range v.Charts.Balance {
		if bs.Measure == "amount" {
			amount = bs
		}
	}
	if amount == nil || amount.Check == nil || amount.Check.ID != "my_balance" {
		t.Fatalf("the balance of amount is not drawn from my_balance: %+v", amount)
	}
	if len(amount.Bars) != 1 || amount.Bars[0] != (BalanceBar{Label: "ACC-01", Source: "1000.00", Sink: "1250.50", Difference: "250.50"}) || amount.OutOfBalance != 1 {
		t.Errorf("bars %+v (%d out of balance), want ACC-01 only (ACC-02 balances)", amount.Bars, amount.OutOfBalance)
	}
	if tl := v.Charts.Timeline; tl == nil || len(tl.Lanes) != 1 || tl.Lanes[0].Check != "my_windows" || len(tl.Lanes[0].Marks) != 1 ||
		!tl.Lanes[0].Marks[0].Start.Equal(time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)) {
		t.Errorf("timeline %+v, want one lane for my_windows at 03:00", v.Charts.Timeline)
	}

	s = fixture(t)
	s.Checks = undeclared()
	v = newTestView(t, s, ev)
	for _, c := range v.Checks {
		for _, col := range c.Typed {
			if col.Role != "" || col.Measure != "" {
				t.Errorf("%s.%s got role %q measure %q from its name", c.ID, col.Name, col.Role, col.Measure)
			}
		}
	}
	for _, bs := range v.Charts.Balance {
		if bs.Check != nil || len(bs.Bars) > 0 {
			t.Errorf("balance of %q drawn from %s without a chart or roles", bs.Measure, bs.Check.ID)
		}
	}
	if v.Charts.Timeline != nil {
		t.Errorf("timeline %+v from columns named window_start/window_end without their roles", v.Charts.Timeline)
	}
}

// TestReplayedKeysPrefersReplayFindings: the replayed-keys chart is drawn
// from a failed check whose rows are replay findings even when a check
// that only lists checkpoint ids runs before it (duplicate ids of an
// in-checkpoint retry are no restore); that check is drawn only when no
// replay check failed.
func TestReplayedKeysPrefersReplayFindings(t *testing.T) {
	ev := fstest.MapFS{
		"exceptions/repeated_ids.csv": {Data: []byte("id,writers\n1,7\n2,7\n3,8;9\n")},
		"queries/repeated_ids.sql":    {Data: []byte("SELECT 1\n")},
		"exceptions/rewritten.csv":    {Data: []byte("key,cps\nk1,8;9\n")},
		"queries/rewritten.sql":       {Data: []byte("SELECT 1\n")},
		"exceptions/clean.csv":        {Data: []byte("key,cps\n")},
		"queries/clean.sql":           {Data: []byte("SELECT 1\n")},
	}
	repeated := withChart(checkFrom(t, ev, "repeated_ids", "accuracy", "Ids on several rows.", []evidence.Column{
		{Type: "VARCHAR", Role: evidence.RoleID}, {Type: "VARCHAR", Role: evidence.RoleCheckpoints}}), evidence.ChartReplayedKeys)
	replay := func(id string) *evidence.Check {
		c := withChart(checkFrom(t, ev, id, "accuracy", "Keys under several checkpoints.", []evidence.Column{
			{Type: "VARCHAR", Role: evidence.RoleKey}, {Type: "VARCHAR", Role: evidence.RoleCheckpoints}}), evidence.ChartReplayedKeys)
		c.Finding = evidence.FindingReplay
		return c
	}
	for _, tt := range []struct {
		checks    []*evidence.Check
		want, seq string
	}{
		{[]*evidence.Check{repeated, replay("rewritten")}, "rewritten", "8;9:1"},
		{[]*evidence.Check{repeated, replay("clean")}, "repeated_ids", "7:2 8;9:1"},
	} {
		s := fixture(t)
		s.Checks = tt.checks
		rk := newTestView(t, s, ev).Charts.ReplayedKeys
		if rk == nil {
			t.Fatalf("no replayed-keys chart, want one from %s", tt.want)
		}
		var seqs []string
		for _, q := range rk.Sequences {
			seqs = append(seqs, q.Checkpoints+":"+strconv.Itoa(q.Keys))
		}
		if rk.Check.ID != tt.want || strings.Join(seqs, " ") != tt.seq {
			t.Errorf("replayed keys from %s %q, want %s %q", rk.Check.ID, strings.Join(seqs, " "), tt.want, tt.seq)
		}
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
