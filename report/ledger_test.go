package report

import (
	"bytes"
	"context"
	stdhtml "html"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// rollForwardSummary is a roll-forward's summary over the rows of ev:
// opening, postings (source) and closing balances (sink, at balance grain)
// per account.
func rollForwardSummary(t *testing.T, ev fstest.MapFS) *evidence.Summary {
	dec := evidence.Column{Type: "DECIMAL(38,2)"}
	role := func(r string) evidence.Column { c := dec; c.Role, c.Measure = r, "amount"; return c }
	rf := withChart(checkFrom(t, ev, "roll_forward", "completeness, accuracy", "Opening + postings = closing.", []evidence.Column{
		{Type: "VARCHAR", Role: evidence.RoleGroup}, role(evidence.RoleOpening), role(evidence.RoleSource), role(evidence.RoleExpected),
		role(evidence.RoleSink), role(evidence.RoleDifference), {Type: "DECIMAL(38,6)", Role: evidence.RoleDifferencePct, Measure: "amount"},
		{Type: "VARCHAR", Role: evidence.RoleFinding}, {Type: "BIGINT"}}), evidence.ChartRollForward)
	opening := int64(5)
	return &evidence.Summary{
		SchemaVersion: evidence.SchemaVersion, Status: rf.Status, Control: evidence.Control{Name: "roll-forward"}, Run: fixtureRun(),
		Parameters: &evidence.Parameters{Source: evidence.InputSpec{URI: "postings.csv"}, Sink: evidence.InputSpec{URI: "closing.csv"},
			Opening: &evidence.InputSpec{URI: "opening.csv"}, Measures: []string{"amount"}, GroupBy: []string{"account"},
			Grain: &evidence.Grain{Sink: "balance"}},
		Inputs: []*evidence.Input{{Role: "source", Kind: "csv", Location: "postings.csv", Rows: 7}, {Role: "sink", Kind: "csv", Location: "closing.csv", Rows: 6},
			{Role: "opening", Kind: "csv", Location: "opening.csv", Rows: 5}},
		Checks: []*evidence.Check{rf},
		Totals: &evidence.Totals{SourceRows: 7, SinkRows: 6, OpeningRows: &opening, Measures: []evidence.MeasureTotal{{Name: "amount", Type: "DECIMAL(38,2)",
			SourceSum: "31.00", SinkSum: "217.00", Difference: "186.00", OpeningSum: "180.00", ExpectedSum: "211.00", RollForwardDifference: "6.00"}}},
	}
}

// A roll-forward's report: the population puts the opening on the side of
// the postings (opening + postings against closing; postings and closing
// balances are not differenced); its chart draws, per account out of
// balance, the opening, the postings and the closing balance — not source
// against sink, which would show the opening as a difference — and no
// balance chart of the measure or of rows is drawn.
func TestRollForwardReport(t *testing.T) {
	ev := fstest.MapFS{
		"exceptions/roll_forward.csv": {Data: []byte("account,opening_amount,postings_amount,expected_amount,closing_amount,difference_amount,difference_pct_amount,status,source_postings\n" +
			"E,10.00,1.00,11.00,12.00,1.00,9.090909,continuing,1\nH,0.00,0.00,0.00,5.00,5.00,,opened,0\n")},
		"queries/roll_forward.sql": {Data: []byte("SELECT 1\n")},
	}
	s := rollForwardSummary(t, ev)
	s.Checks[0].Status, s.Status = evidence.Fail, evidence.Fail
	v := newTestView(t, s, ev)
	var pop []string
	for _, r := range v.Population {
		pop = append(pop, r.Label+"|"+figure(r.Source)+"|"+figure(r.Sink)+"|"+figure(r.Difference))
	}
	if got := strings.Join(pop, "\n"); got != strings.Join([]string{
		"rows of the opening balances|5|–|–",
		"rows: postings (source); closing balances (sink)|7|6|–",
		"sum of amount: opening|180.00|–|–",
		"sum of amount: postings; closing|31.00|217.00|–",
		"sum of amount: opening + postings; closing|211.00|217.00|6.00",
	}, "\n") {
		t.Errorf("population:\n%s", got)
	}
	if len(v.Charts.Balance) != 0 {
		t.Errorf("balance series %+v in a roll-forward with the sink at balance grain", v.Charts.Balance)
	}
	if len(v.Charts.RollForward) != 1 {
		t.Fatalf("roll-forward series %+v", v.Charts.RollForward)
	}
	rs := v.Charts.RollForward[0]
	want := []RollForwardBar{{Label: "E", Opening: "10.00", Postings: "1.00", Closing: "12.00", Difference: "1.00", Status: "continuing"},
		{Label: "H", Opening: "0.00", Postings: "0.00", Closing: "5.00", Difference: "5.00", Status: "opened"}}
	if rs.OutOfBalance != 2 || len(rs.Bars) != 2 || rs.Bars[0] != want[0] || rs.Bars[1] != want[1] {
		t.Errorf("bars %+v (%d out of balance), want %+v", rs.Bars, rs.OutOfBalance, want)
	}
	var html bytes.Buffer
	if err := (htmlWriter{}).Write(context.Background(), &html, v); err != nil {
		t.Fatal(err)
	}
	h := stdhtml.UnescapeString(html.String())
	for _, w := range []string{"Roll-forward of amount: opening + postings against closing", "In total: opening 180.00 + postings 31.00, closing 217.00.",
		"every account out of balance (2)", "<title>opening 10.00</title>", "<title>postings 1.00</title>", "<title>closing 12.00</title>", ">opened</text>",
		"<h3>opening: csv <code>opening.csv</code>, 5 rows</h3>"} {
		if !strings.Contains(h, w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
	if strings.Contains(h, "Sum of amount: source vs sink") || strings.Contains(h, "Row count: source vs sink") {
		t.Error("report.html draws source against sink in a roll-forward")
	}
	var md bytes.Buffer
	if err := (markdownWriter{}).Write(context.Background(), &md, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Balance control, no record id: the source's rows are postings, the sink's balances, one row per group; roll-forward: opening balances + source = sink (closing balances)") {
		t.Errorf("report.md does not say what was compared:\n%s", md.String())
	}
}

// When every group rolls forward, the chart draws the total and says so.
func TestRollForwardReportPass(t *testing.T) {
	ev := fstest.MapFS{
		"exceptions/roll_forward.csv": {Data: []byte("account,opening_amount,postings_amount,expected_amount,closing_amount,difference_amount,difference_pct_amount,status,source_postings\n")},
		"queries/roll_forward.sql":    {Data: []byte("SELECT 1\n")},
	}
	v := newTestView(t, rollForwardSummary(t, ev), ev)
	c := rollForwardChart(v.Charts.RollForward[0])
	if !strings.Contains(c.Caption, "Every account rolls forward (roll_forward passed).") || len(c.Rects) != 3 || c.Rects[0].Tip != "opening 180.00" {
		t.Errorf("chart %q with %d bars", c.Caption, len(c.Rects))
	}
}

// A balance control without an opening: no distinct ids (there is no id),
// no difference of rows when the sink holds balances (postings against
// balances are different units), and no row-count chart; the sums are
// balanced source against sink. With both inputs at posting grain the rows
// are differenced and drawn.
func TestBalanceControlPopulation(t *testing.T) {
	s := &evidence.Summary{Parameters: &evidence.Parameters{Measures: []string{"delta"}, GroupBy: []string{"aid"}, Grain: &evidence.Grain{Sink: "balance"}},
		Totals: &evidence.Totals{SourceRows: 8, SinkRows: 7, Measures: []evidence.MeasureTotal{{Name: "delta", SourceSum: "183.00", SinkSum: "235.50", Difference: "52.50"}}}}
	rows := func() string {
		var out []string
		for _, r := range population(s) {
			out = append(out, r.Label+"|"+figure(r.Source)+"|"+figure(r.Sink)+"|"+figure(r.Difference))
		}
		return strings.Join(out, "; ")
	}
	if got := rows(); got != "rows|8|7|–; sum of delta|183.00|235.50|52.50" {
		t.Errorf("population %s", got)
	}
	v := &View{Summary: s}
	if bs := balanceSeries(v); len(bs) != 1 || bs[0].Measure != "delta" {
		t.Errorf("balance series %+v, want delta's only", bs)
	}
	if got := balancePhrase(s.Parameters); got != "Balance control, no record id: the source's rows are postings, the sink's balances, one row per group" {
		t.Errorf("phrase %q", got)
	}
	s.Parameters.Grain = nil
	if got := rows(); got != "rows|8|7|-1; sum of delta|183.00|235.50|52.50" {
		t.Errorf("population at posting grain %s", got)
	}
	if bs := balanceSeries(v); len(bs) != 2 {
		t.Errorf("balance series at posting grain %+v, want rows and delta", bs)
	}
}
