package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// The reports of a balance control (summary.json parameters with group_by
// and measures and no id): its inputs' grains in words, the population of
// a roll-forward and its chart, opening, postings and closing per group out
// of balance.

// grainOf is the grain of input role ("source", "sink", "opening") as the
// parameters give it: "balance" or "posting" (the default; the opening is
// always at balance grain).
func grainOf(p *evidence.Parameters, role string) string {
	if role == "opening" {
		return "balance"
	}
	if p == nil || p.Grain == nil {
		return "posting"
	}
	g := p.Grain.Source
	if role == "sink" {
		g = p.Grain.Sink
	}
	if g == "" {
		return "posting"
	}
	return g
}

// balanceGrain reports whether the source or the sink is at balance
// grain: one row per group, so its rows are not counted against the
// other's.
func balanceGrain(p *evidence.Parameters) bool {
	return grainOf(p, "source") == "balance" || grainOf(p, "sink") == "balance"
}

// balancePhrase opens the "what was compared" line of a balance control:
// what each input's rows are and, with an opening, the roll-forward.
func balancePhrase(p *evidence.Parameters) string {
	rows := map[string]string{"posting": "postings", "balance": "balances, one row per group"}
	text := fmt.Sprintf("Balance control, no record id: the source's rows are %s, the sink's %s", rows[grainOf(p, "source")], rows[grainOf(p, "sink")])
	if p.Opening != nil {
		text += "; roll-forward: opening balances + source = sink (closing balances)"
	}
	return text
}

// rollForwardPopulation is the population table of a roll-forward: the
// opening on the source side of the equation opening + postings =
// closing, then the rows and sums of postings and closing balances (not
// differenced: different units), and the control in total, opening +
// postings against closing.
func rollForwardPopulation(s *evidence.Summary) []PopulationRow {
	t := s.Totals
	none := Cell{Null: true}
	n := func(i int64) Cell { return Cell{Text: fmt.Sprint(i), Kind: KindNumber} }
	dec := func(v string) Cell { return typed(field{text: v}, KindNumber) }
	var rows []PopulationRow
	if t.OpeningRows != nil {
		rows = append(rows, PopulationRow{Label: "rows of the opening balances", Source: n(*t.OpeningRows), Sink: none, Difference: none})
	}
	rows = append(rows, PopulationRow{Label: "rows: postings (source); closing balances (sink)", Source: n(t.SourceRows), Sink: n(t.SinkRows), Difference: none})
	for _, m := range t.Measures {
		rows = append(rows,
			PopulationRow{Label: "sum of " + m.Name + ": opening", Source: dec(m.OpeningSum), Sink: none, Difference: none},
			PopulationRow{Label: "sum of " + m.Name + ": postings; closing", Source: dec(m.SourceSum), Sink: dec(m.SinkSum), Difference: none},
			PopulationRow{Label: "sum of " + m.Name + ": opening + postings; closing", Source: dec(m.ExpectedSum), Sink: dec(m.SinkSum), Difference: dec(m.RollForwardDifference)})
	}
	return rows
}

// RollForwardSeries is, for one measure of a roll-forward, the opening
// balance, the postings and the closing balance of every group out of
// balance (the first maxBars), from the check that feeds the roll-forward
// chart.
type RollForwardSeries struct {
	Measure string
	Check   *CheckView
	// Groups are the spec's group_by columns.
	Groups []string
	// Total is opening, postings and closing in total.
	Total RollForwardBar
	// Bars are the groups out of balance in this measure (the first
	// maxBars); OutOfBalance counts them all, Complete is false when not
	// every exception row was read.
	Bars         []RollForwardBar
	OutOfBalance int
	Complete     bool
}

// RollForwardBar is one group's roll-forward: exact values as text.
type RollForwardBar struct {
	Label                                  string
	Opening, Postings, Closing, Difference string
	// Status is the group's status (continuing, opened, closed,
	// postings_only; "" for the total).
	Status string
}

// rollForwardSeries draws one series per measure of the first check that
// feeds the roll-forward chart (roll_forward), when it ran.
func rollForwardSeries(v *View) []*RollForwardSeries {
	s := v.Summary
	if s.Totals == nil || s.Parameters == nil {
		return nil
	}
	var c *CheckView
	for _, cv := range v.Checks {
		if cv.Chart == evidence.ChartRollForward && cv.Status != evidence.Skipped {
			c = cv
			break
		}
	}
	if c == nil {
		return nil
	}
	var out []*RollForwardSeries
	for _, m := range s.Totals.Measures {
		rs := &RollForwardSeries{Measure: m.Name, Check: c, Groups: s.Parameters.GroupBy, Complete: true,
			Total: RollForwardBar{Label: "all groups", Opening: m.OpeningSum, Postings: m.SourceSum, Closing: m.SinkSum, Difference: m.RollForwardDifference}}
		out = append(out, rs)
		oi, pi, ki, di := c.col(evidence.RoleOpening, m.Name), c.col(evidence.RoleSource, m.Name), c.col(evidence.RoleSink, m.Name), c.col(evidence.RoleDifference, m.Name)
		if c.Status != evidence.Fail || oi < 0 || pi < 0 || ki < 0 || di < 0 {
			continue
		}
		gs := c.cols(evidence.RoleGroup)
		fi, wi, ti := c.col(evidence.RoleFinding, ""), c.col(evidence.RoleWithinTolerance, ""), c.col(evidence.RoleTotal, "")
		for _, row := range c.rows {
			if num(row[di].Text) == 0 {
				continue // out of balance in another measure
			}
			if wi >= 0 && row[wi].Text == "true" || ti >= 0 && row[ti].Text == "true" {
				continue // within tolerance, or the total (drawn from the totals)
			}
			rs.OutOfBalance++
			if len(rs.Bars) == maxBars {
				continue
			}
			label := make([]string, len(gs))
			for i, g := range gs {
				label[i] = row[g].Text
			}
			b := RollForwardBar{Label: strings.Join(label, " / "), Opening: row[oi].Text, Postings: row[pi].Text, Closing: row[ki].Text, Difference: row[di].Text}
			if fi >= 0 {
				b.Status = row[fi].Text
			}
			rs.Bars = append(rs.Bars, b)
		}
		rs.Complete = c.complete
	}
	return out
}

// openingFill is the colour of the opening balance's bars: grey, beside
// the style sheet's source (postings) and sink (closing) colours.
const openingFill = "#7a7a7a"

// rollForwardChart lays out one measure's roll-forward: per group (or in
// total, when every group rolls forward) three bars, opening, postings and
// closing, with the exact values and closing − (opening + postings).
func rollForwardChart(rs *RollForwardSeries) *svgChart {
	const (
		labelW = 150.0
		barW   = 430.0
		textW  = 260.0
		rowH   = 46.0
		top    = 26.0
	)
	rows := []RollForwardBar{rs.Total}
	groups := strings.Join(rs.Groups, ", ")
	caption := fmt.Sprintf("In total: opening %s + postings %s, closing %s.", rs.Total.Opening, rs.Total.Postings, rs.Total.Closing)
	switch c := rs.Check; {
	case c.Status == evidence.Pass:
		caption += " Every " + groups + " rolls forward (" + c.ID + " passed)."
	case len(rs.Bars) > 0:
		rows = rs.Bars
		caption += fmt.Sprintf(" Drawn: every %s out of balance (%d", groups, rs.OutOfBalance)
		if !rs.Complete {
			caption += " or more"
		}
		caption += "), with its opening balance, its postings and its closing balance; the others roll forward."
		if rs.OutOfBalance > maxBars {
			caption += fmt.Sprintf(" The first %d are drawn; all are in %s.", maxBars, c.File)
		}
	}
	ch := &svgChart{Title: "Roll-forward of " + rs.Measure + ": opening + postings against closing", Caption: caption,
		W: labelW + barW + textW, H: top + rowH*float64(len(rows)) + 8}
	lo, hi := 0.0, 0.0
	for _, r := range rows {
		for _, v := range []string{r.Opening, r.Postings, r.Closing} {
			lo, hi = math.Min(lo, num(v)), math.Max(hi, num(v))
		}
	}
	if hi == lo {
		hi = lo + 1
	}
	x := func(v float64) float64 { return labelW + (v-lo)/(hi-lo)*barW }
	zero := x(0)
	ch.Texts = append(ch.Texts,
		svgText{X: labelW, Y: 14, Class: "legend", Text: "■ opening", Fill: openingFill},
		svgText{X: labelW + 80, Y: 14, Class: "legend src", Text: "■ postings"},
		svgText{X: labelW + 170, Y: 14, Class: "legend snk", Text: "■ closing"},
		svgText{X: labelW + barW + 8, Y: 14, Class: "legend", Text: "closing − (opening + postings)"})
	for i, r := range rows {
		y := top + float64(i)*rowH
		label := cutRunes(r.Label, 24)
		cls := "lbl"
		if r.Status == "" {
			cls = "lbl total"
		}
		ch.Texts = append(ch.Texts, svgText{X: labelW - 6, Y: y + 17, Anchor: "end", Class: cls, Text: label})
		if r.Status != "" && r.Status != "continuing" {
			ch.Texts = append(ch.Texts, svgText{X: labelW - 6, Y: y + 31, Anchor: "end", Class: "lbl", Text: strings.ReplaceAll(r.Status, "_", " ")})
		}
		for j, b := range []struct{ v, side, fill, name string }{{r.Opening, "opening", openingFill, "opening "}, {r.Postings, "src", "", "postings "}, {r.Closing, "snk", "", "closing "}} {
			x0, x1 := zero, x(num(b.v))
			if x1 < x0 {
				x0, x1 = x1, x0
			}
			ch.Rects = append(ch.Rects, svgRect{X: x0, Y: y + 4 + float64(j)*13, W: math.Max(x1-x0, 0.5), H: 11, Class: b.side, Fill: b.fill, Tip: b.name + b.v})
		}
		diffCls := "diff"
		if r.Difference != "" && num(r.Difference) != 0 {
			diffCls = "diff bad"
		}
		ch.Texts = append(ch.Texts, svgText{X: labelW + barW + 8, Y: y + 23, Class: diffCls, Text: signed(r.Difference)})
	}
	ch.Lines = append(ch.Lines, svgLine{X1: zero, Y1: top, X2: zero, Y2: ch.H - 4, Class: "axis"})
	return ch
}
