package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestDiffChartSmallDifference: the balance chart draws sink − source, so
// a difference of 1 in 30,000 is a bar as wide as the chart allows when it
// is the only one, and at least minDiffBar beside a far larger one — two
// bars of the totals would differ by 0.014 pixel. The totals are written
// beside it; a sink short is drawn left of the axis.
func TestDiffChartSmallDifference(t *testing.T) {
	one := BalanceBar{Label: "ACC-01", Source: "30000", Sink: "30001", Difference: "1"}
	c := diffChart("Row count: sink − source", "", []BalanceBar{one}, [2]string{"source", "sink"})
	if len(c.Rects) != 1 || c.Rects[0].Class != "diff over" || c.Rects[0].W < 200 {
		t.Fatalf("one difference of 1 in 30,000: rects %+v, want one bar \"diff over\" at least 200 px wide", c.Rects)
	}
	if !hasText(c, "+1 (+0.0033 %)") || !hasText(c, "30,000 · 30,001") {
		t.Errorf("texts %+v lack the difference with its share, or the two totals", c.Texts)
	}

	big := BalanceBar{Label: "ACC-02", Source: "30000", Sink: "40000", Difference: "10000"}
	short := BalanceBar{Label: "ACC-03", Source: "30000", Sink: "29999.5", Difference: "-0.5"}
	c = diffChart("Sum of amount: sink − source", "", []BalanceBar{one, big, short}, [2]string{"source", "sink"})
	if len(c.Rects) != 3 {
		t.Fatalf("rects %+v, want one per group", c.Rects)
	}
	var axis float64
	for _, l := range c.Lines {
		if l.Class == "axis" {
			axis = l.X1
		}
	}
	small, large, left := c.Rects[0], c.Rects[1], c.Rects[2]
	if small.W < minDiffBar || small.X != axis {
		t.Errorf("difference 1 beside 10,000: bar %+v, want at least %g px from the axis at %g", small, minDiffBar, axis)
	}
	if large.W < 100 || small.W > minDiffBar {
		t.Errorf("difference 10,000 is %g px, 1 is %g px: the largest is not drawn the widest, or the smallest not at the least", large.W, small.W)
	}
	if left.Class != "diff short" || math.Abs(left.X+left.W-axis) > 0.01 || left.W < minDiffBar {
		t.Errorf("sink short by 0.5: bar %+v, want \"diff short\" ending at the axis %g", left, axis)
	}
	if !hasText(c, "-0.5 (-0.0017 %)") {
		t.Errorf("texts %+v lack -0.5 with its share", c.Texts)
	}
}

func hasText(c *svgChart, s string) bool {
	for _, t := range c.Texts {
		if t.Text == s {
			return true
		}
	}
	return false
}

// TestDifferenceOf: a row without a difference column gets sink − source
// exactly, at the finer scale of the two.
func TestDifferenceOf(t *testing.T) {
	for _, c := range []struct {
		b    BalanceBar
		want string
	}{
		{BalanceBar{Source: "30000", Sink: "30001.10"}, "1.10"},
		{BalanceBar{Source: "0.1", Sink: "0.3"}, "0.2"}, // not 0.19999999999999998
		{BalanceBar{Source: "12", Sink: "7"}, "-5"},
		{BalanceBar{Source: "12", Sink: "7", Difference: "-5.00"}, "-5.00"},
		{BalanceBar{Source: "n/a", Sink: "7"}, ""},
	} {
		if got := differenceOf(c.b); got != c.want {
			t.Errorf("differenceOf(%+v) = %q, want %q", c.b, got, c.want)
		}
	}
}

// TestDetailRows: an input's details in plain words, the same from the
// values a source kind records in the run as from summary.json.
func TestDetailRows(t *testing.T) {
	inRun := map[string]any{
		"columns":                []map[string]string{{"name": "entry_id", "pg_type": "text", "arrow_type": "utf8"}, {"name": "posted_at", "pg_type": "timestamp with time zone", "arrow_type": "timestamp[us, tz=UTC]"}},
		"shared_snapshot":        false,
		"shared_snapshot_reason": "read on its own",
		"port":                   5432,
		"database":               "test",
		"snapshot_timestamp":     "2026-03-01T06:00:00Z",
		"offsets":                map[string]any{"ledger": []any{1, 2}},
	}
	want := []DetailRow{
		{"Port", "5432"},
		{"Database", "test"},
		{"Same snapshot as another input", "no"},
		{"Snapshot sharing explained", "read on its own"},
		{"Columns read (name: database type → Arrow type)", "entry_id: text → utf8\nposted_at: timestamp with time zone → timestamp[us, tz=UTC]"},
		{"Offsets", "Ledger: 1; 2"},
		{"Snapshot timestamp", "2026-03-01T06:00:00Z"},
	}
	data, err := json.Marshal(inRun)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON map[string]any
	if err := json.Unmarshal(data, &fromJSON); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]map[string]any{"in the run": inRun, "from summary.json": fromJSON} {
		got := detailRows(d)
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows %+v, want %+v", name, len(got), got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: row %d = %+v, want %+v", name, i, got[i], want[i])
			}
		}
	}
	if s := detailText(inRun); !strings.Contains(s, "Columns read (name: database type → Arrow type):\n  entry_id: text → utf8\n") {
		t.Errorf("detailText: %q", s)
	}
}
