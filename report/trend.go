package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// Trend is exceptions per check over the control's recent runs (the run
// history), for the trend chart: only checks with exceptions in one of
// the runs.
type Trend struct {
	// Runs are the runs, oldest first; the last is this run.
	Runs []evidence.HistoryRun
	// Series are the checks, in the order of this run's checks (then any
	// that only earlier runs had), each with one count per run (-1 when
	// the check did not run then).
	Series []TrendSeries
}

// TrendSeries is one check's exceptions per run.
type TrendSeries struct {
	Check  string
	Counts []int64
	Max    int64
}

// trend is the trend chart's series, nil without a history or when no
// check had exceptions in the recent runs.
func trend(v *View) *Trend {
	h := v.Summary.History
	if h == nil || len(h.Runs) == 0 {
		return nil
	}
	t := &Trend{Runs: h.Runs}
	var ids []string
	seen := map[string]bool{}
	for _, c := range v.Summary.Checks {
		if !seen[c.ID] {
			seen[c.ID] = true
			ids = append(ids, c.ID)
		}
	}
	var rest []string
	for _, r := range h.Runs {
		for id := range r.Exceptions {
			if !seen[id] {
				seen[id] = true
				rest = append(rest, id)
			}
		}
	}
	sort.Strings(rest)
	for _, id := range append(ids, rest...) {
		s := TrendSeries{Check: id}
		for _, r := range h.Runs {
			n, ok := r.Exceptions[id]
			if !ok {
				n = -1
			}
			s.Counts = append(s.Counts, n)
			s.Max = max(s.Max, n)
		}
		if s.Max > 0 {
			t.Series = append(t.Series, s)
		}
	}
	if len(t.Series) == 0 {
		return nil
	}
	return t
}

// trendChart draws one lane per check with one bar per run, its height
// the run's exceptions scaled to the check's largest count, this run
// last; a run that did not run the check has no bar.
func trendChart(t *Trend) *svgChart {
	n := len(t.Runs)
	const labelW, plotW, laneH, top = 190.0, 520.0, 44.0, 8.0
	slot := plotW / float64(n)
	bw := math.Max(math.Min(slot*0.7, 24), 2)
	first, last := t.Runs[0], t.Runs[n-1]
	c := &svgChart{
		Title: fmt.Sprintf("Exceptions per check over the last %s", plural(n, "run")),
		Caption: fmt.Sprintf("From the run history: one bar per run, oldest (%s, %s) to this one (%s, %s); each check's bars are scaled to its own largest count, printed on the right with this run's.",
			runLabel(first), first.StartedAt, runLabel(last), last.StartedAt),
		W: labelW + plotW + 150, H: top + laneH*float64(len(t.Series)) + 22,
	}
	for i, s := range t.Series {
		y := top + float64(i)*laneH
		base := y + laneH - 10
		c.Texts = append(c.Texts, svgText{X: labelW - 6, Y: base - 4, Anchor: "end", Class: "lbl", Text: s.Check})
		c.Lines = append(c.Lines, svgLine{X1: labelW, Y1: base, X2: labelW + plotW, Y2: base, Class: "lane"})
		for j, v := range s.Counts {
			if v < 0 {
				continue
			}
			h := 0.0
			if s.Max > 0 {
				h = float64(v) / float64(s.Max) * (laneH - 16)
			}
			class := "src"
			if v > 0 {
				class = "dup"
			}
			r := t.Runs[j]
			c.Rects = append(c.Rects, svgRect{X: labelW + float64(j)*slot + (slot-bw)/2, Y: base - math.Max(h, 1), W: bw, H: math.Max(h, 1), Class: class,
				Tip: fmt.Sprintf("%s: %d exception(s) in run %s (%s)", s.Check, v, r.ID, runLabel(r))})
		}
		now := s.Counts[n-1]
		text := fmt.Sprintf("now %d, max %d", now, s.Max)
		if now < 0 {
			text = fmt.Sprintf("not run now, max %d", s.Max)
		}
		c.Texts = append(c.Texts, svgText{X: labelW + plotW + 8, Y: base - 4, Class: "diff", Text: text})
	}
	bottom := top + laneH*float64(len(t.Series))
	c.Texts = append(c.Texts,
		svgText{X: labelW, Y: bottom + 14, Class: "lbl", Text: runLabel(first)},
		svgText{X: labelW + plotW, Y: bottom + 14, Anchor: "end", Class: "lbl", Text: runLabel(last)})
	return c
}
