package report

import (
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// htmlWriter writes report.html: one self-contained page (no script, no
// external asset, nothing fetched) an auditor can open or print — the
// verdict, the population, each check with its first exceptions and count,
// the inputs and their fingerprints, the parameters and the exact SQL.
// Inline SVG charts, laid out from the view's chart series, show the
// balance of source and sink (in total and per group out of balance), the
// keys replayed under more than one checkpoint, the re-performed against
// the sink value per window, and a timeline of findings per window with
// restarts marked; with a run history, the exceptions per check over the
// control's recent runs, and a table of what is new, recurring and
// resolved since the previous run.
type htmlWriter struct{}

func init() { Register(htmlWriter{}) }

func (htmlWriter) Format() string { return "html" }
func (htmlWriter) File() string   { return evidence.HTMLFile }

// Write renders v.
func (htmlWriter) Write(_ context.Context, w io.Writer, v *View) error {
	return htmlTemplate.Execute(w, newHTMLPage(v))
}

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report.html").Funcs(template.FuncMap{
	"upper":  func(s any) string { return strings.ToUpper(fmt.Sprint(s)) },
	"scalar": scalar, // a detail value: text as is, anything else as JSON
	// validlength and skipped: the words for a cut file and a file not read.
	"validlength": validLengthText,
	"skipped":     skippedText,
	"f":           func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) },
}).Parse(htmlSource))

// htmlPage is the view as the template reads it.
type htmlPage struct {
	S          *evidence.Summary
	Conclusion string
	Population [][4]string
	Checks     []htmlCheck
	Charts     []*svgChart
	Params     [][2]string
	Replay     *htmlReplay
	Since      *SinceLastRunView
	Compared   []ComparedRow
	Uncompared []UncomparedRow
}

// htmlReplay is the replay section.
type htmlReplay struct {
	*ReplayView
	Unexplained string
	Restarts    []htmlRestart
}

type htmlRestart struct {
	RestartView
	Find string
}

type htmlCheck struct {
	*CheckView
	Anchor string
	Shown  int
}

func newHTMLPage(v *View) *htmlPage {
	p := &htmlPage{S: v.Summary, Conclusion: v.Conclusion(""), Params: v.Parameters, Since: v.SinceLastRun, Compared: v.Compared, Uncompared: v.Uncompared}
	if r := v.Replay; r != nil {
		p.Replay = &htmlReplay{ReplayView: r, Unexplained: countList(r.Unexplained)}
		for _, rs := range r.Restarts {
			p.Replay.Restarts = append(p.Replay.Restarts, htmlRestart{RestartView: rs, Find: countList(rs.Findings)})
		}
	}
	for _, c := range v.Checks {
		p.Checks = append(p.Checks, htmlCheck{CheckView: c, Anchor: "check-" + c.ID, Shown: len(c.First)})
	}
	for _, row := range v.Population {
		p.Population = append(p.Population, [4]string{row.Label, figure(row.Source), figure(row.Sink), figure(row.Difference)})
	}
	p.Charts = svgCharts(v.Charts)
	return p
}

// svgChart is a chart laid out for the template: shapes in SVG user units.
type svgChart struct {
	Title, Caption string
	W, H           float64
	Rects          []svgRect
	Texts          []svgText
	Lines          []svgLine
}

type svgRect struct {
	X, Y, W, H float64
	Class      string
	Tip        string
	// Fill is a colour of its own ("" for the class's): the opening
	// balance of a roll-forward, drawn with no class of the style sheet.
	Fill string
}

type svgText struct {
	X, Y   float64
	Anchor string // start, middle, end
	Class  string
	Text   string
	Fill   string // as svgRect's
}

type svgLine struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

// num parses a decimal for drawing (exact values are printed as text).
func num(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return f
}

// barChart lays out pairs of horizontal bars (source above sink) with the
// exact values and the difference as text.
func barChart(title, caption string, rows []BalanceBar) *svgChart {
	const (
		labelW = 150.0
		barW   = 430.0
		textW  = 260.0
		rowH   = 34.0
		top    = 26.0
	)
	c := &svgChart{Title: title, Caption: caption, W: labelW + barW + textW, H: top + rowH*float64(len(rows)) + 8}
	lo, hi := 0.0, 0.0
	for _, r := range rows {
		src, snk := num(r.Source), num(r.Sink)
		lo, hi = math.Min(lo, math.Min(src, snk)), math.Max(hi, math.Max(src, snk))
	}
	if hi == lo {
		hi = lo + 1
	}
	x := func(v float64) float64 { return labelW + (v-lo)/(hi-lo)*barW }
	zero := x(0)
	c.Texts = append(c.Texts,
		svgText{X: labelW, Y: 14, Class: "legend src", Text: "■ source"},
		svgText{X: labelW + 80, Y: 14, Class: "legend snk", Text: "■ sink"},
		svgText{X: labelW + barW + 8, Y: 14, Class: "legend", Text: "sink − source"})
	for i, r := range rows {
		y := top + float64(i)*rowH
		cls := "lbl"
		if r.Total {
			cls = "lbl total"
		}
		c.Texts = append(c.Texts, svgText{X: labelW - 6, Y: y + 17, Anchor: "end", Class: cls, Text: cutRunes(r.Label, 24)})
		for j, b := range []struct {
			v    float64
			s    string
			side string
		}{{num(r.Source), r.Source, "src"}, {num(r.Sink), r.Sink, "snk"}} {
			x0, x1 := zero, x(b.v)
			if x1 < x0 {
				x0, x1 = x1, x0
			}
			c.Rects = append(c.Rects, svgRect{X: x0, Y: y + 4 + float64(j)*13, W: math.Max(x1-x0, 0.5), H: 11, Class: b.side, Tip: map[string]string{"src": "source ", "snk": "sink "}[b.side] + b.s})
		}
		diffCls := "diff"
		if r.Difference != "" && num(r.Difference) != 0 {
			diffCls = "diff bad"
		}
		c.Texts = append(c.Texts, svgText{X: labelW + barW + 8, Y: y + 17, Class: diffCls, Text: signed(r.Difference)})
	}
	c.Lines = append(c.Lines, svgLine{X1: zero, Y1: top, X2: zero, Y2: c.H - 4, Class: "axis"})
	return c
}

func signed(s string) string {
	if s != "" && s[0] != '-' && num(s) != 0 {
		return "+" + s
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// svgCharts lays out every chart the view has series for.
func svgCharts(c Charts) []*svgChart {
	var out []*svgChart
	for _, bs := range c.Balance {
		out = append(out, balanceChart(bs))
	}
	for _, rs := range c.RollForward {
		out = append(out, rollForwardChart(rs))
	}
	if c.ReplayedKeys != nil {
		out = append(out, replayChart(c.ReplayedKeys))
	}
	for _, rs := range c.Reperformance {
		out = append(out, reperformChart(rs))
	}
	if c.Timeline != nil {
		out = append(out, windowTimeline(c.Timeline))
	}
	if c.Trend != nil {
		out = append(out, trendChart(c.Trend))
	}
	return out
}

// balanceChart draws the total of source and sink, or every group out of
// balance.
func balanceChart(bs *BalanceSeries) *svgChart {
	title := "Row count"
	if bs.Measure != "" {
		title = "Sum of " + bs.Measure
	}
	rows := []BalanceBar{bs.Total}
	caption := "Source and sink in total."
	groups := strings.Join(bs.Groups, ", ")
	if len(bs.Groups) > 0 {
		caption = "In total: source " + bs.Total.Source + ", sink " + bs.Total.Sink + "."
	}
	c := bs.Check
	switch {
	case len(bs.Groups) == 0:
	case c == nil || c.Status == evidence.Skipped:
		caption += " The per-" + groups + " balance did not run."
	case c.Status == evidence.Pass:
		caption += " Every " + groups + " balances (" + c.ID + " passed)."
	case c.col(evidence.RoleSink, bs.Measure) < 0:
	default:
		if len(bs.Bars) > 0 {
			rows = bs.Bars // groups only: the total would dwarf them
		}
		caption += fmt.Sprintf(" Drawn: every %s out of balance (%d", groups, bs.OutOfBalance)
		if !bs.Complete {
			caption += " or more"
		}
		caption += "); the others balance."
		if bs.OutOfBalance > maxBars {
			caption += fmt.Sprintf(" The first %d are drawn; all are in %s.", maxBars, c.File)
		}
	}
	return barChart(title+": source vs sink", caption, rows)
}

// replayChart draws the keys written under each sequence of checkpoint
// ids: each bar is a restore that replayed output already committed.
func replayChart(rk *ReplayedKeys) *svgChart {
	seqs := rk.Sequences
	caption := fmt.Sprintf("From %s: each bar is one sequence of checkpoint ids that wrote the same key — output committed under the first, then written again after a restore. %d key(s)", rk.Check.File, rk.Keys)
	if !rk.Complete {
		caption += " counted (not every row was read)"
	}
	caption += "."
	if len(seqs) > maxBars {
		caption += fmt.Sprintf(" The %d largest of %d sequences are drawn.", maxBars, len(seqs))
		seqs = seqs[:maxBars]
	}
	const labelW, barW, rowH, top = 190.0, 480.0, 22.0, 8.0
	c := &svgChart{Title: "Keys written again after a restore (" + rk.Check.ID + ")", Caption: caption, W: labelW + barW + 90, H: top + rowH*float64(len(seqs)) + 8}
	max := float64(seqs[0].Keys)
	for i, s := range seqs {
		y := top + float64(i)*rowH
		w := float64(s.Keys) / max * barW
		c.Texts = append(c.Texts, svgText{X: labelW - 6, Y: y + 14, Anchor: "end", Class: "lbl", Text: "checkpoints " + cutRunes(strings.ReplaceAll(s.Checkpoints, ";", " → "), 30)})
		c.Rects = append(c.Rects, svgRect{X: labelW, Y: y + 3, W: math.Max(w, 0.5), H: 14, Class: "dup", Tip: plural(s.Keys, "key") + " under checkpoints " + s.Checkpoints})
		c.Texts = append(c.Texts, svgText{X: labelW + w + 6, Y: y + 14, Class: "diff", Text: plural(s.Keys, "key")})
	}
	return c
}

// windowTimeline draws each lane's findings along event time (one mark per
// window), with restarts as dashed lines.
func windowTimeline(tl *Timeline) *svgChart {
	lo, hi := tl.From, tl.To
	const labelW, plotW, laneH, top = 190.0, 560.0, 28.0, 24.0
	c := &svgChart{
		Title:   "Findings per window along event time (UTC)",
		Caption: fmt.Sprintf("Each mark is one window with a finding, from %s to %s; windows without findings are not drawn. Dashed lines are restarts.", lo.Format("2006-01-02 15:04"), hi.Format("2006-01-02 15:04")),
		W:       labelW + plotW + 20, H: top + laneH*float64(len(tl.Lanes)) + 30,
	}
	x := func(t time.Time) float64 { return labelW + float64(t.Sub(lo))/float64(hi.Sub(lo))*plotW }
	for i, ln := range tl.Lanes {
		y := top + float64(i)*laneH
		c.Texts = append(c.Texts, svgText{X: labelW - 6, Y: y + 17, Anchor: "end", Class: "lbl", Text: ln.Check})
		c.Lines = append(c.Lines, svgLine{X1: labelW, Y1: y + laneH/2, X2: labelW + plotW, Y2: y + laneH/2, Class: "lane"})
		for _, m := range ln.Marks {
			x0, x1 := x(m.Start), x(m.End)
			c.Rects = append(c.Rects, svgRect{X: x0, Y: y + 5, W: math.Max(x1-x0, 3), H: laneH - 10, Class: "dup",
				Tip: ln.Check + " " + m.Start.Format(time.RFC3339) + " – " + m.End.Format(time.RFC3339)})
		}
	}
	bottom := top + laneH*float64(len(tl.Lanes))
	for _, r := range tl.Restarts {
		t := r.Time
		c.Lines = append(c.Lines, svgLine{X1: x(t), Y1: top - 6, X2: x(t), Y2: bottom, Class: "restart"})
		anchor := "middle"
		switch {
		case x(t) > labelW+plotW-40:
			anchor = "end"
		case x(t) < labelW+40:
			anchor = "start"
		}
		c.Texts = append(c.Texts, svgText{X: x(t), Y: top - 9, Anchor: anchor, Class: "restart", Text: r.Label})
	}
	c.Texts = append(c.Texts,
		svgText{X: labelW, Y: bottom + 16, Class: "lbl", Text: lo.Format("2006-01-02 15:04")},
		svgText{X: labelW + plotW, Y: bottom + 16, Anchor: "end", Class: "lbl", Text: hi.Format("2006-01-02 15:04")})
	return c
}

// reperformChart draws, for one aggregate, the value re-performed from the
// source against the sink's (summed) value for every window and group with
// a re-performance finding.
func reperformChart(rs *ReperformanceSeries) *svgChart {
	parts := make([]string, len(rs.Findings))
	for i, f := range rs.Findings {
		parts[i] = fmt.Sprintf("%s %d", f.Check, f.N)
	}
	caption := fmt.Sprintf("From %s: \"source\" is the value re-performed from the source events, \"sink\" the sum of the sink's rows for the window. Findings: %s.", rs.Check.File, strings.Join(parts, ", "))
	if len(rs.Bars) == maxBars {
		caption += fmt.Sprintf(" The first %d windows are drawn.", maxBars)
	}
	return barChart("Re-performed vs sink per window: "+rs.Aggregate, caption, rs.Bars)
}
