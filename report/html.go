package report

import (
	"context"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
)

// htmlWriter writes report.html: one self-contained page (no script, no
// external asset, nothing fetched) an auditor can open or print — the
// verdict, the population, each check with its first exceptions and count,
// the inputs and their fingerprints, the parameters and the exact SQL.
// Inline SVG charts show the balance of source and sink (in total and per
// group out of balance), the keys replayed under more than one checkpoint,
// and — when window checks ran — a timeline of their findings per window
// with restarts marked.
//
// With the evidence folder (WriteFolder) the charts count every exception
// row; with Write alone they use the first rows a Result carries and say so.
type htmlWriter struct{}

func init() { Register(htmlWriter{}) }

func (htmlWriter) Format() string { return "html" }
func (htmlWriter) File() string   { return "report.html" }

// Write renders r with charts drawn from the first exception rows only.
func (h htmlWriter) Write(ctx context.Context, w io.Writer, r *Result) error {
	return h.WriteFolder(ctx, w, r, nil)
}

// WriteFolder renders r with charts drawn from every row of the exceptions
// CSVs in evidence (nil: the first rows in r).
func (htmlWriter) WriteFolder(_ context.Context, w io.Writer, r *Result, evidence fs.FS) error {
	v, err := newHTMLView(r, evidence)
	if err != nil {
		return err
	}
	return htmlTemplate.Execute(w, v)
}

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New("report.html").Funcs(template.FuncMap{
	"upper":  func(s any) string { return strings.ToUpper(fmt.Sprint(s)) },
	"scalar": scalar, // a detail value: text as is, anything else as JSON
	"f":      func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) },
}).Parse(htmlSource))

// chartRowLimit caps the exception rows a chart reads from one file.
const chartRowLimit = 200_000

type htmlView struct {
	R          *Result
	Conclusion string
	Population [][4]string
	Checks     []htmlCheck
	Charts     []*svgChart
	Params     [][2]string
	Replay     *htmlReplay
}

// htmlReplay is the replay summary of a re-performed windowed sink, as text.
type htmlReplay struct {
	Window, EventTime, TimeZone, Emission string
	Population                            [][2]string
	RestartFiles                          []string
	Restarts                              []htmlRestart
	Notes                                 []string
	Unexplained                           string
	UnexplainedKeys                       int64
}

type htmlRestart struct {
	No                            int
	At, Checkpoint, Barrier, Find string
	Keys                          int64
}

func replayView(s *checks.ReplaySummary) *htmlReplay {
	if s == nil {
		return nil
	}
	v := &htmlReplay{Window: s.Window, EventTime: s.EventTime, TimeZone: s.TimeZone, Emission: s.Emission,
		RestartFiles: s.RestartFiles, Notes: s.RestartNotes, Unexplained: countList(s.Unexplained), UnexplainedKeys: s.UnexplainedKeys,
		Population: [][2]string{
			{"source events", fmt.Sprint(s.SourceEvents)},
			{"windows × groups re-performed", fmt.Sprint(s.ExpectedKeys)},
			{"sink rows", fmt.Sprint(s.SinkRows)},
			{"distinct sink keys (window + group)", fmt.Sprint(s.SinkDistinctKeys)},
			{"sink rows per key (1.0 when each window is written once)", fmt.Sprintf("%.4f", s.SinkRowsPerKey)},
		}}
	for _, r := range s.Restarts {
		hr := htmlRestart{No: r.No, At: r.Time.UTC().Format("2006-01-02 15:04:05"), Checkpoint: "unknown", Barrier: "–", Keys: r.Keys, Find: countList(r.Findings)}
		if r.RestoredCheckpoint >= 0 {
			hr.Checkpoint = fmt.Sprint(r.RestoredCheckpoint)
		}
		if r.RestoredCheckpointTime != nil {
			hr.Barrier = r.RestoredCheckpointTime.UTC().Format("2006-01-02 15:04:05")
		}
		v.Restarts = append(v.Restarts, hr)
	}
	return v
}

// countList renders {check: n} as "check n, …" in key order ("none" when
// empty).
func countList(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for i, k := range ks {
		ks[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(ks, ", ")
}

type htmlCheck struct {
	*checks.Outcome
	Anchor string
	Shown  int
	Rows   [][]htmlCell
}

type htmlCell struct {
	V    string
	Null bool
}

func newHTMLView(r *Result, evidence fs.FS) (*htmlView, error) {
	v := &htmlView{R: r, Replay: replayView(r.Replay)}
	for _, c := range r.Checks {
		hc := htmlCheck{Outcome: c, Anchor: "check-" + c.ID, Shown: len(c.FirstRows)}
		for _, row := range c.FirstRows {
			cells := make([]htmlCell, len(row))
			for i, s := range row {
				if s == nil {
					cells[i] = htmlCell{Null: true}
				} else {
					cells[i] = htmlCell{V: *s}
				}
			}
			hc.Rows = append(hc.Rows, cells)
		}
		v.Checks = append(v.Checks, hc)
	}
	v.Conclusion = r.Conclusion("")
	if t := r.Totals; t != nil {
		v.Population = append(v.Population,
			[4]string{"rows", fmt.Sprint(t.SourceRows), fmt.Sprint(t.SinkRows), fmt.Sprint(t.SinkRows - t.SourceRows)},
			[4]string{"distinct ids", fmt.Sprint(t.SourceDistinctIDs), fmt.Sprint(t.SinkDistinctIDs), fmt.Sprint(t.SinkDistinctIDs - t.SourceDistinctIDs)})
		for _, m := range t.Measures {
			v.Population = append(v.Population, [4]string{"sum of " + m.Name, m.SourceSum, m.SinkSum, m.Difference})
		}
	}
	var err error
	if v.Params, err = flatten(r.Parameters); err != nil {
		return nil, err
	}
	if v.Charts, err = charts(r, evidence); err != nil {
		return nil, err
	}
	return v, nil
}

// table is an exceptions table as a chart reads it.
type table struct {
	header   []string
	rows     [][]string
	complete bool // every exception row is in rows
}

func (t *table) col(name string) int {
	for i, h := range t.header {
		if h == name {
			return i
		}
	}
	return -1
}

// readTable returns up to chartRowLimit rows of o's exceptions: from the
// CSV in evidence, or from o.FirstRows without it.
func readTable(o *checks.Outcome, evidence fs.FS) (*table, error) {
	if evidence == nil || o.File == "" {
		t := &table{header: o.ColumnNames()}
		for _, row := range o.FirstRows {
			vals := make([]string, len(row))
			for i, s := range row {
				if s != nil {
					vals[i] = *s
				}
			}
			t.rows = append(t.rows, vals)
		}
		t.complete = int64(len(t.rows)) == o.Exceptions
		return t, nil
	}
	f, err := evidence.Open(o.File)
	if err != nil {
		return nil, fmt.Errorf("html: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	t := &table{complete: true}
	if t.header, err = cr.Read(); err != nil {
		return nil, fmt.Errorf("html: %s: %w", o.File, err)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("html: %s: %w", o.File, err)
		}
		if len(t.rows) == chartRowLimit {
			t.complete = false
			break
		}
		t.rows = append(t.rows, rec)
	}
	return t, nil
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
}

type svgText struct {
	X, Y   float64
	Anchor string // start, middle, end
	Class  string
	Text   string
}

type svgLine struct {
	X1, Y1, X2, Y2 float64
	Class          string
}

func outcome(r *Result, id string) *checks.Outcome {
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	return nil
}

// charts builds every chart the result supports.
func charts(r *Result, evidence fs.FS) ([]*svgChart, error) {
	var out []*svgChart
	if r.Totals != nil {
		bc, err := balanceCharts(r, evidence)
		if err != nil {
			return nil, err
		}
		out = append(out, bc...)
	}
	rc, err := replayChart(r, evidence)
	if err != nil {
		return nil, err
	}
	if rc != nil {
		out = append(out, rc)
	}
	pc, err := reperformCharts(r, evidence)
	if err != nil {
		return nil, err
	}
	out = append(out, pc...)
	tc, err := windowTimeline(r, evidence)
	if err != nil {
		return nil, err
	}
	if tc != nil {
		out = append(out, tc)
	}
	return out, nil
}

// balanceRow is one pair of bars.
type balanceRow struct {
	label                 string
	source, sink          float64
	sourceS, sinkS, diffS string
	total                 bool
}

const maxBars = 30

// balanceCharts draws, for the row count and each measure, the total of
// source and sink and every group out of balance.
func balanceCharts(r *Result, evidence fs.FS) ([]*svgChart, error) {
	t := r.Totals
	var groups []string
	if r.Parameters != nil {
		groups = r.Parameters.GroupBy
	}
	type series struct {
		title, check, src, snk, diff string
		total                        balanceRow
	}
	all := []series{{
		title: "Row count", check: "row_count_balance", src: "source_rows", snk: "sink_rows", diff: "difference",
		total: balanceRow{label: "all rows", source: float64(t.SourceRows), sink: float64(t.SinkRows),
			sourceS: fmt.Sprint(t.SourceRows), sinkS: fmt.Sprint(t.SinkRows), diffS: fmt.Sprint(t.SinkRows - t.SourceRows), total: true},
	}}
	if r.Replay != nil {
		// A re-performed windowed sink has one row per window, not per
		// source event: its row count does not balance against the source.
		all = nil
	}
	for _, m := range t.Measures {
		all = append(all, series{
			title: "Sum of " + m.Name, check: "sum_balance", src: "source_" + m.Name, snk: "sink_" + m.Name, diff: "difference_" + m.Name,
			total: balanceRow{label: "all rows", source: num(m.SourceSum), sink: num(m.SinkSum), sourceS: m.SourceSum, sinkS: m.SinkSum, diffS: m.Difference, total: true},
		})
	}
	var out []*svgChart
	for _, s := range all {
		rows := []balanceRow{s.total}
		caption := "Source and sink in total."
		if len(groups) > 0 {
			caption = "In total: source " + s.total.sourceS + ", sink " + s.total.sinkS + "."
		}
		o := outcome(r, s.check)
		switch {
		case len(groups) == 0:
		case o == nil || o.Status == checks.Skipped:
			caption += " The per-" + strings.Join(groups, ", ") + " balance did not run."
		case o.Status == checks.Pass:
			caption += " Every " + strings.Join(groups, ", ") + " balances (" + s.check + " passed)."
		default:
			tb, err := readTable(o, evidence)
			if err != nil {
				return nil, err
			}
			si, ki, di := tb.col(s.src), tb.col(s.snk), tb.col(s.diff)
			if si < 0 || ki < 0 {
				break
			}
			n := 0
			for _, row := range tb.rows {
				if di >= 0 && num(row[di]) == 0 {
					continue // this group is out of balance in another measure
				}
				n++
				if n > maxBars {
					continue
				}
				var label []string
				for _, g := range groups {
					if gi := tb.col(g); gi >= 0 {
						label = append(label, row[gi])
					}
				}
				br := balanceRow{label: strings.Join(label, " / "), source: num(row[si]), sink: num(row[ki]), sourceS: row[si], sinkS: row[ki]}
				if di >= 0 {
					br.diffS = row[di]
				}
				rows = append(rows, br)
			}
			if len(rows) > 1 {
				rows = rows[1:] // groups only: the total would dwarf them
			}
			caption += fmt.Sprintf(" Drawn: every %s out of balance (%d", strings.Join(groups, ", "), n)
			if !tb.complete {
				caption += " or more"
			}
			caption += "); the others balance."
			if n > maxBars {
				caption += fmt.Sprintf(" The first %d are drawn; all are in %s.", maxBars, o.File)
			}
		}
		out = append(out, barChart(s.title+": source vs sink", caption, rows))
	}
	return out, nil
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
func barChart(title, caption string, rows []balanceRow) *svgChart {
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
		lo, hi = math.Min(lo, math.Min(r.source, r.sink)), math.Max(hi, math.Max(r.source, r.sink))
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
		if r.total {
			cls = "lbl total"
		}
		c.Texts = append(c.Texts, svgText{X: labelW - 6, Y: y + 17, Anchor: "end", Class: cls, Text: cutRunes(r.label, 24)})
		for j, b := range []struct {
			v    float64
			s    string
			side string
		}{{r.source, r.sourceS, "src"}, {r.sink, r.sinkS, "snk"}} {
			x0, x1 := zero, x(b.v)
			if x1 < x0 {
				x0, x1 = x1, x0
			}
			c.Rects = append(c.Rects, svgRect{X: x0, Y: y + 4 + float64(j)*13, W: math.Max(x1-x0, 0.5), H: 11, Class: b.side, Tip: map[string]string{"src": "source ", "snk": "sink "}[b.side] + b.s})
		}
		diffCls := "diff"
		if r.diffS != "" && num(r.diffS) != 0 {
			diffCls = "diff bad"
		}
		c.Texts = append(c.Texts, svgText{X: labelW + barW + 8, Y: y + 17, Class: diffCls, Text: signed(r.diffS)})
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

// replayChart counts the keys written under each sequence of checkpoint
// ids: each bar is a restore that replayed output already committed.
func replayChart(r *Result, evidence fs.FS) (*svgChart, error) {
	for _, id := range []string{"key_checkpoint_conflicts", "duplicate_keys", "duplicate_ids"} {
		o := outcome(r, id)
		if o == nil || o.Status != checks.Fail {
			continue
		}
		tb, err := readTable(o, evidence)
		if err != nil {
			return nil, err
		}
		ci := tb.col("checkpoint_ids")
		if ci < 0 {
			continue
		}
		counts := map[string]int{}
		for _, row := range tb.rows {
			if row[ci] != "" {
				counts[row[ci]]++
			}
		}
		if len(counts) == 0 {
			continue
		}
		seqs := make([]string, 0, len(counts))
		for s := range counts {
			seqs = append(seqs, s)
		}
		sort.Slice(seqs, func(i, j int) bool {
			if counts[seqs[i]] != counts[seqs[j]] {
				return counts[seqs[i]] > counts[seqs[j]]
			}
			return seqs[i] < seqs[j]
		})
		caption := fmt.Sprintf("From %s: each bar is one sequence of checkpoint ids that wrote the same key — output committed under the first, then written again after a restore. %d key(s)", o.File, len(tb.rows))
		if !tb.complete {
			caption += " counted (not every row was read)"
		}
		caption += "."
		if len(seqs) > maxBars {
			caption += fmt.Sprintf(" The %d largest of %d sequences are drawn.", maxBars, len(seqs))
			seqs = seqs[:maxBars]
		}
		const labelW, barW, rowH, top = 190.0, 480.0, 22.0, 8.0
		c := &svgChart{Title: "Keys written again after a restore (" + id + ")", Caption: caption, W: labelW + barW + 90, H: top + rowH*float64(len(seqs)) + 8}
		max := float64(counts[seqs[0]])
		for i, s := range seqs {
			y := top + float64(i)*rowH
			w := float64(counts[s]) / max * barW
			c.Texts = append(c.Texts, svgText{X: labelW - 6, Y: y + 14, Anchor: "end", Class: "lbl", Text: "checkpoints " + cutRunes(strings.ReplaceAll(s, ";", " → "), 30)})
			c.Rects = append(c.Rects, svgRect{X: labelW, Y: y + 3, W: math.Max(w, 0.5), H: 14, Class: "dup", Tip: plural(counts[s], "key") + " under checkpoints " + s})
			c.Texts = append(c.Texts, svgText{X: labelW + w + 6, Y: y + 14, Class: "diff", Text: plural(counts[s], "key")})
		}
		return c, nil
	}
	return nil, nil
}

// windowChecks are the checks whose rows are windows of an aggregate sink.
var windowChecks = []string{"duplicate_keys", "reperformance_mismatches", "missing_keys", "unexpected_keys", "early_writes", "key_checkpoint_conflicts"}

// stampRE finds a timestamp inside a text ("restart 1 at
// 2026-11-26T03:14:20Z from checkpoint 97").
var stampRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}(?::?\d{2})?)?`)

// windowTimeline draws, for each failed window check, its findings along
// event time (one mark per window), with restarts as dashed lines: those of
// the replay summary, and any a finding names (a column with "restart" or
// "restore" in its name holding a timestamp).
func windowTimeline(r *Result, evidence fs.FS) (*svgChart, error) {
	type mark struct{ start, end time.Time }
	type lane struct {
		id    string
		marks []mark
	}
	var lanes []lane
	restarts := map[time.Time]string{} // time -> label
	if r.Replay != nil {
		for _, rs := range r.Replay.Restarts {
			restarts[rs.Time.UTC()] = fmt.Sprintf("restart %d %s", rs.No, rs.Time.UTC().Format("15:04:05"))
		}
	}
	var lo, hi time.Time
	see := func(t time.Time) {
		if lo.IsZero() || t.Before(lo) {
			lo = t
		}
		if hi.IsZero() || t.After(hi) {
			hi = t
		}
	}
	for _, id := range windowChecks {
		o := outcome(r, id)
		if o == nil || o.Status != checks.Fail {
			continue
		}
		tb, err := readTable(o, evidence)
		if err != nil {
			return nil, err
		}
		si, ei := tb.col("window_start"), tb.col("window_end")
		if si < 0 && ei < 0 {
			continue
		}
		var rcols []int
		for i, h := range tb.header {
			if l := strings.ToLower(h); strings.Contains(l, "restart") || strings.Contains(l, "restore") {
				rcols = append(rcols, i)
			}
		}
		ln := lane{id: id}
		for _, row := range tb.rows {
			var m mark
			var ok bool
			if si >= 0 {
				m.start, ok = parseTimestamp(row[si])
			}
			if ei >= 0 {
				var ok2 bool
				m.end, ok2 = parseTimestamp(row[ei])
				ok = ok || ok2
			}
			if !ok {
				continue
			}
			if m.start.IsZero() {
				m.start = m.end
			}
			if m.end.IsZero() {
				m.end = m.start
			}
			see(m.start)
			see(m.end)
			ln.marks = append(ln.marks, m)
			for _, ri := range rcols {
				if t, ok := parseTimestamp(stampRE.FindString(row[ri])); ok {
					if _, known := restarts[t]; !known {
						restarts[t] = "restart " + t.Format("15:04:05")
					}
				}
			}
		}
		if len(ln.marks) > 0 {
			lanes = append(lanes, ln)
		}
	}
	if len(lanes) == 0 {
		return nil, nil
	}
	for t := range restarts {
		see(t)
	}
	if !hi.After(lo) {
		hi = lo.Add(time.Hour)
	}
	const labelW, plotW, laneH, top = 190.0, 560.0, 28.0, 24.0
	c := &svgChart{
		Title:   "Findings per window along event time (UTC)",
		Caption: fmt.Sprintf("Each mark is one window with a finding, from %s to %s; windows without findings are not drawn. Dashed lines are restarts.", lo.Format("2006-01-02 15:04"), hi.Format("2006-01-02 15:04")),
		W:       labelW + plotW + 20, H: top + laneH*float64(len(lanes)) + 30,
	}
	x := func(t time.Time) float64 { return labelW + float64(t.Sub(lo))/float64(hi.Sub(lo))*plotW }
	for i, ln := range lanes {
		y := top + float64(i)*laneH
		c.Texts = append(c.Texts, svgText{X: labelW - 6, Y: y + 17, Anchor: "end", Class: "lbl", Text: ln.id})
		c.Lines = append(c.Lines, svgLine{X1: labelW, Y1: y + laneH/2, X2: labelW + plotW, Y2: y + laneH/2, Class: "lane"})
		for _, m := range ln.marks {
			x0, x1 := x(m.start), x(m.end)
			c.Rects = append(c.Rects, svgRect{X: x0, Y: y + 5, W: math.Max(x1-x0, 3), H: laneH - 10, Class: "dup",
				Tip: ln.id + " " + m.start.Format(time.RFC3339) + " – " + m.end.Format(time.RFC3339)})
		}
	}
	bottom := top + laneH*float64(len(lanes))
	ts := make([]time.Time, 0, len(restarts))
	for t := range restarts {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	for _, t := range ts {
		c.Lines = append(c.Lines, svgLine{X1: x(t), Y1: top - 6, X2: x(t), Y2: bottom, Class: "restart"})
		anchor := "middle"
		switch {
		case x(t) > labelW+plotW-40:
			anchor = "end"
		case x(t) < labelW+40:
			anchor = "start"
		}
		c.Texts = append(c.Texts, svgText{X: x(t), Y: top - 9, Anchor: anchor, Class: "restart", Text: restarts[t]})
	}
	c.Texts = append(c.Texts,
		svgText{X: labelW, Y: bottom + 16, Class: "lbl", Text: lo.Format("2006-01-02 15:04")},
		svgText{X: labelW + plotW, Y: bottom + 16, Anchor: "end", Class: "lbl", Text: hi.Format("2006-01-02 15:04")})
	return c, nil
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// reperformCharts draws, per aggregate, the value re-performed from the
// source against the sink's (summed) value for every window and group with
// a re-performance finding.
func reperformCharts(r *Result, evidence fs.FS) ([]*svgChart, error) {
	o := outcome(r, "reperformance_mismatches")
	if o == nil || o.Status != checks.Fail {
		return nil, nil
	}
	tb, err := readTable(o, evidence)
	if err != nil {
		return nil, err
	}
	ai, ei, si, di, fi := tb.col("aggregate"), tb.col("expected"), tb.col("sink_sum"), tb.col("difference"), tb.col("finding")
	wi := tb.col("window_start")
	if wi < 0 {
		wi = tb.col("window_end")
	}
	if ai < 0 || ei < 0 || si < 0 || wi < 0 {
		return nil, nil
	}
	var groups []string
	if r.Parameters != nil && r.Parameters.Reperform != nil {
		groups = r.Parameters.Reperform.GroupBy
	}
	byAgg := map[string][]balanceRow{}
	findings := map[string]map[string]int{}
	var aggs []string
	for _, row := range tb.rows {
		a := row[ai]
		if _, ok := byAgg[a]; !ok {
			aggs = append(aggs, a)
			findings[a] = map[string]int{}
		}
		if fi >= 0 {
			findings[a][row[fi]]++
		}
		if len(byAgg[a]) == maxBars {
			continue
		}
		label := row[wi]
		if t, ok := parseTimestamp(row[wi]); ok {
			label = t.Format("01-02 15:04")
		}
		for _, g := range groups {
			if gi := tb.col(g); gi >= 0 {
				label += " " + row[gi]
			}
		}
		br := balanceRow{label: label, source: num(row[ei]), sink: num(row[si]), sourceS: row[ei], sinkS: row[si]}
		if di >= 0 {
			br.diffS = row[di]
		}
		byAgg[a] = append(byAgg[a], br)
	}
	sort.Strings(aggs)
	var out []*svgChart
	for _, a := range aggs {
		var parts []string
		for f, n := range findings[a] {
			parts = append(parts, fmt.Sprintf("%s %d", f, n))
		}
		sort.Strings(parts)
		caption := fmt.Sprintf("From %s: \"source\" is the value re-performed from the source events, \"sink\" the sum of the sink's rows for the window. Findings: %s.", o.File, strings.Join(parts, ", "))
		if len(byAgg[a]) == maxBars {
			caption += fmt.Sprintf(" The first %d windows are drawn.", maxBars)
		}
		out = append(out, barChart("Re-performed vs sink per window: "+a, caption, byAgg[a]))
	}
	return out, nil
}
