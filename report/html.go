package report

import (
	"context"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"math/big"
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
	"upper":      func(s any) string { return strings.ToUpper(fmt.Sprint(s)) },
	"detailrows": detailRows, // an input's details in plain words
	"breakable":  breakable,
	// cellclass: an exception value's class; a number never breaks, a
	// timestamp only at its space
	"cellclass": func(c Cell) string {
		switch c.Kind {
		case KindNumber:
			return "v num"
		case KindTime:
			return "v time"
		}
		return "v"
	},
	// validlength and skipped: the words for a cut file and a file not read.
	"validlength": validLengthText,
	"skipped":     skippedText,
	"f":           func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) },
}).Parse(htmlSource))

// breakable escapes s for HTML and lets a browser break the line after
// each _ ; / and , (a <wbr>), so that a narrow column of an exceptions
// table breaks a column name or value there rather than at any letter.
func breakable(s string) template.HTML {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "_;/,")
		if i < 0 {
			b.WriteString(template.HTMLEscapeString(s))
			return template.HTML(b.String())
		}
		b.WriteString(template.HTMLEscapeString(s[:i+1]))
		b.WriteString("<wbr>")
		s = s[i+1:]
	}
}

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

// diffChart lays out one row per bar of rows: the difference sink −
// source (names[1] − names[0]) as a bar from a zero axis, left when the
// sink is short and right when it is over, every bar to the scale of the
// largest difference drawn (a non-zero difference at least minDiffBar
// wide, however small beside the others); then the exact difference, with
// its share of the source; then both totals. The difference is the
// picture: two near-equal totals drawn as bars look alike, a difference of
// 1 in 30,000 among them included.
func diffChart(title, caption string, rows []BalanceBar, names [2]string) *svgChart {
	const (
		labelW = 160.0
		barW   = 300.0 // both sides of the axis
		diffW  = 210.0
		totalW = 330.0
		rowH   = 24.0
		top    = 24.0
	)
	c := &svgChart{Title: title, Caption: caption, W: labelW + barW + diffW + totalW, H: top + rowH*float64(len(rows)) + 8}
	diffs := make([]float64, len(rows))
	largest, over, short := 0.0, false, false
	for i, r := range rows {
		diffs[i] = num(differenceOf(r))
		largest = math.Max(largest, math.Abs(diffs[i]))
		over, short = over || diffs[i] > 0, short || diffs[i] < 0
	}
	// The axis in the middle when differences go both ways, else at the
	// side they grow from, so that they use the whole width.
	zero, span := labelW+barW/2, barW/2-6
	switch {
	case over && !short:
		zero, span = labelW+6, barW-12
	case short && !over:
		zero, span = labelW+barW-6, barW-12
	}
	c.Texts = append(c.Texts, svgText{X: labelW + barW + diffW + 8, Y: 14, Class: "legend", Text: names[0] + " · " + names[1]})
	if short {
		c.Texts = append(c.Texts, svgText{X: labelW + 4, Y: 14, Class: "legend short", Text: "◀ " + names[1] + " short"})
	}
	if over {
		c.Texts = append(c.Texts, svgText{X: labelW + barW - 4, Y: 14, Anchor: "end", Class: "legend over", Text: names[1] + " over ▶"})
	}
	c.Texts = append(c.Texts, svgText{X: labelW + barW + 8, Y: 14, Class: "legend", Text: names[1] + " − " + names[0]})
	for i, r := range rows {
		y := top + float64(i)*rowH
		cls := "lbl"
		if r.Total {
			cls = "lbl total"
		}
		c.Texts = append(c.Texts, svgText{X: labelW - 8, Y: y + 16, Anchor: "end", Class: cls, Text: cutRunes(r.Label, 24)})
		d := diffs[i]
		diffText := signed(differenceOf(r))
		if d != 0 && largest > 0 {
			w := math.Max(math.Abs(d)/largest*span, minDiffBar)
			x, side := zero, "over"
			if d < 0 {
				x, side = zero-w, "short"
			}
			c.Rects = append(c.Rects, svgRect{X: x, Y: y + 5, W: w, H: rowH - 10, Class: "diff " + side,
				Tip: r.Label + ": " + names[1] + " − " + names[0] + " = " + diffText})
		}
		dcls := "diff"
		if d != 0 {
			dcls = "diff bad"
			if share := shareOf(d, num(r.Source)); share != "" {
				diffText += " (" + share + ")"
			}
		}
		c.Texts = append(c.Texts,
			svgText{X: labelW + barW + 8, Y: y + 16, Class: dcls, Text: diffText},
			svgText{X: labelW + barW + diffW + 8, Y: y + 16, Class: "totals", Text: grouped(r.Source) + " · " + grouped(r.Sink)})
	}
	c.Lines = append(c.Lines, svgLine{X1: zero, Y1: top - 4, X2: zero, Y2: c.H - 4, Class: "axis"})
	return c
}

// minDiffBar is the narrowest bar a non-zero difference is drawn with, in
// pixels.
const minDiffBar = 3.0

// differenceOf is the bar's difference sink − source as written, or
// worked out exactly from its two values when the row has none ("" when
// either is not a number).
func differenceOf(b BalanceBar) string {
	if b.Difference != "" {
		return b.Difference
	}
	src, ok1 := new(big.Rat).SetString(b.Source)
	snk, ok2 := new(big.Rat).SetString(b.Sink)
	if !ok1 || !ok2 {
		return ""
	}
	return snk.Sub(snk, src).FloatString(max(decimalsOf(b.Source), decimalsOf(b.Sink)))
}

// shareOf is a difference as a percentage of the source, to two
// significant digits ("+0.0033 %"); "" when the source is 0.
func shareOf(diff, source float64) string {
	if source == 0 {
		return ""
	}
	p := diff / math.Abs(source) * 100
	s := strconv.FormatFloat(p, 'g', 2, 64)
	if strings.ContainsAny(s, "e") {
		s = strconv.FormatFloat(p, 'f', -1, 64)
	}
	if p > 0 {
		s = "+" + s
	}
	return s + " %"
}

// grouped puts thousands separators in a plain decimal; anything else is
// returned as it is.
func grouped(s string) string {
	if _, err := strconv.ParseFloat(s, 64); err != nil || strings.ContainsAny(s, "eE") {
		return s
	}
	return groupThousands(s)
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
		caption = "In total: source " + grouped(bs.Total.Source) + ", sink " + grouped(bs.Total.Sink) + "."
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
	return diffChart(title+": sink − source", caption, rows, [2]string{"source", "sink"})
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
	caption := fmt.Sprintf("From %s: \"re-performed\" is the value re-performed from the source events, \"sink\" the sum of the sink's rows for the window; the bar is their difference. Findings: %s.", rs.Check.File, strings.Join(parts, ", "))
	if len(rs.Bars) == maxBars {
		caption += fmt.Sprintf(" The first %d windows are drawn.", maxBars)
	}
	return diffChart("Re-performed vs sink per window: "+rs.Aggregate, caption, rs.Bars, [2]string{"re-performed", "sink"})
}
