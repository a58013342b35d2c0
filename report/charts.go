package report

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// maxBars is the most bars (or sequences) one chart draws.
const maxBars = 30

// Charts is what the pictures of report.html draw, taken from the
// exception rows by the roles of their columns and the chart each check
// feeds (evidence.Check.Chart, the check file's "-- chart:").
type Charts struct {
	// Balance has one series for the row count (a sink of records only,
	// or postings against postings) and one per measure (not in a
	// roll-forward, whose source and sink are not balanced against each
	// other).
	Balance []*BalanceSeries
	// RollForward has one series per measure of a roll-forward (spec
	// opening:): opening, postings and closing per group out of balance.
	RollForward []*RollForwardSeries
	// ReplayedKeys counts the keys written under each sequence of
	// checkpoint ids (nil when no such check failed).
	ReplayedKeys *ReplayedKeys
	// Reperformance has one series per aggregate with a re-performance
	// finding.
	Reperformance []*ReperformanceSeries
	// Timeline places the findings of every failed check whose rows name a
	// window along event time (nil when there are none).
	Timeline *Timeline
	// Trend is exceptions per check over the control's recent runs (nil
	// without a run history, or when no check had exceptions in them).
	Trend *Trend
}

// BalanceBar is one pair of bars: source and sink, exact values as text.
type BalanceBar struct {
	Label                    string
	Source, Sink, Difference string
	Total                    bool
}

// BalanceSeries is the balance of the row count (Measure "") or of one
// measure: the total, and every group out of balance.
type BalanceSeries struct {
	Measure string
	Total   BalanceBar
	// Groups are the spec's group_by columns (none: a total only).
	Groups []string
	// Check is the check that balances the series per group; nil when
	// none ran.
	Check *CheckView
	// Bars are the groups out of balance in this series (the first
	// maxBars); OutOfBalance counts them all, Complete is false when not
	// every exception row was read.
	Bars         []BalanceBar
	OutOfBalance int
	Complete     bool
}

// ReplayedKeys is the number of keys written under each sequence of
// checkpoint ids: output committed under the first, written again after a
// restore.
type ReplayedKeys struct {
	Check *CheckView
	// Sequences are the checkpoint-id sequences as the check writes them
	// ("8;9"), most keys first.
	Sequences []Sequence
	// Keys counts the rows read; Complete is false when not every row was.
	Keys     int
	Complete bool
}

// Sequence is one checkpoint-id sequence and its number of keys.
type Sequence struct {
	Checkpoints string
	Keys        int
}

// ReperformanceSeries is, for one aggregate, the re-performed value
// against the sink's (summed) value of every window and group with a
// finding.
type ReperformanceSeries struct {
	Check     *CheckView
	Aggregate string
	// Findings count the rows per finding, in finding order.
	Findings []Count
	// Bars are the first maxBars windows: Source is re-performed, Sink the
	// sum of the sink rows.
	Bars []BalanceBar
}

// Timeline is the findings per window along event time, with restarts.
type Timeline struct {
	Lanes    []Lane
	Restarts []RestartMark
	From, To time.Time
}

// Lane is one check's windows with findings.
type Lane struct {
	Check string
	Marks []Mark
}

// Mark is one window, [Start, End], in UTC.
type Mark struct{ Start, End time.Time }

// RestartMark is one restart on the timeline.
type RestartMark struct {
	Time  time.Time
	Label string
}

func charts(v *View) Charts {
	return Charts{Balance: balanceSeries(v), RollForward: rollForwardSeries(v), ReplayedKeys: replayedKeys(v), Reperformance: reperformance(v), Timeline: timeline(v), Trend: trend(v)}
}

// balanceSeries draws the row count (not for a windowed sink: its rows are
// windows, not records; nor for an input at balance grain: one row per
// group) and each measure (not in a roll-forward: rollForwardSeries), from
// the check that feeds the balance chart with figures of that measure.
func balanceSeries(v *View) []*BalanceSeries {
	s := v.Summary
	t := s.Totals
	if t == nil {
		return nil
	}
	var groups []string
	if s.Parameters != nil {
		groups = s.Parameters.GroupBy
	}
	var out []*BalanceSeries
	if !v.Windowed && !balanceGrain(s.Parameters) {
		out = append(out, &BalanceSeries{Total: BalanceBar{Label: "all rows", Source: itoa(t.SourceRows), Sink: itoa(t.SinkRows), Difference: itoa(t.SinkRows - t.SourceRows), Total: true}})
	}
	for _, m := range t.Measures {
		if m.ExpectedSum != "" {
			continue // a roll-forward: rollForwardSeries
		}
		out = append(out, &BalanceSeries{Measure: m.Name, Total: BalanceBar{Label: "all rows", Source: m.SourceSum, Sink: m.SinkSum, Difference: m.Difference, Total: true}})
	}
	for _, bs := range out {
		bs.Groups, bs.Complete = groups, true
		for _, c := range v.Checks {
			if c.Chart == evidence.ChartBalance && c.col(evidence.RoleSource, bs.Measure) >= 0 {
				bs.Check = c
				break
			}
		}
		c := bs.Check
		if len(groups) == 0 || c == nil || c.Status != evidence.Fail {
			continue
		}
		si, ki, di := c.col(evidence.RoleSource, bs.Measure), c.col(evidence.RoleSink, bs.Measure), c.col(evidence.RoleDifference, bs.Measure)
		if ki < 0 {
			continue
		}
		gs := c.cols(evidence.RoleGroup)
		wi, ti := c.col(evidence.RoleWithinTolerance, ""), c.col(evidence.RoleTotal, "")
		for _, row := range c.rows {
			if di >= 0 && num(row[di].Text) == 0 {
				continue // this group is out of balance in another measure
			}
			if wi >= 0 && row[wi].Text == "true" || ti >= 0 && row[ti].Text == "true" {
				continue // within tolerance, or the total (drawn from the totals)
			}
			bs.OutOfBalance++
			if len(bs.Bars) == maxBars {
				continue
			}
			label := make([]string, len(gs))
			for i, g := range gs {
				label[i] = row[g].Text
			}
			b := BalanceBar{Label: strings.Join(label, " / "), Source: row[si].Text, Sink: row[ki].Text}
			if di >= 0 {
				b.Difference = row[di].Text
			}
			bs.Bars = append(bs.Bars, b)
		}
		bs.Complete = c.complete
	}
	return out
}

// replayedKeys counts the checkpoint-id sequences (role checkpoints) of
// one failed check that feeds the replayed-keys chart and has any: the
// first in run order among those whose rows are replay findings (finding
// replay: keys written again after a restore), else the first among the
// others (a record check that lists the checkpoint ids of its rows, drawn
// when no replay check found anything).
func replayedKeys(v *View) *ReplayedKeys {
	for _, replay := range []bool{true, false} {
		for _, c := range v.Checks {
			if c.Chart != evidence.ChartReplayedKeys || c.Status != evidence.Fail || (c.Finding == evidence.FindingReplay) != replay {
				continue
			}
			if rk := sequences(c); rk != nil {
				return rk
			}
		}
	}
	return nil
}

// sequences counts the keys of c per checkpoint-id sequence; nil when c
// has no checkpoints column or no row names a checkpoint.
func sequences(c *CheckView) *ReplayedKeys {
	ci := c.col(evidence.RoleCheckpoints, "")
	if ci < 0 {
		return nil
	}
	n := map[string]int{}
	for _, row := range c.rows {
		if row[ci].Text != "" {
			n[row[ci].Text]++
		}
	}
	if len(n) == 0 {
		return nil
	}
	rk := &ReplayedKeys{Check: c, Keys: len(c.rows), Complete: c.complete}
	for s, k := range n {
		rk.Sequences = append(rk.Sequences, Sequence{Checkpoints: s, Keys: k})
	}
	sort.Slice(rk.Sequences, func(i, j int) bool {
		a, b := rk.Sequences[i], rk.Sequences[j]
		if a.Keys != b.Keys {
			return a.Keys > b.Keys
		}
		return a.Checkpoints < b.Checkpoints
	})
	return rk
}

// reperformance draws every failed check feeding the re-performance chart,
// one series per aggregate.
func reperformance(v *View) []*ReperformanceSeries {
	var out []*ReperformanceSeries
	for _, c := range v.Checks {
		if c.Chart != evidence.ChartReperformance || c.Status != evidence.Fail {
			continue
		}
		ai, ei, si, di, fi := c.col(evidence.RoleMeasure, ""), c.col(evidence.RoleSource, ""), c.col(evidence.RoleSink, ""), c.col(evidence.RoleDifference, ""), c.col(evidence.RoleFinding, "")
		wi := c.col(evidence.RoleWindowStart, "")
		if wi < 0 {
			wi = c.col(evidence.RoleWindowEnd, "")
		}
		if ai < 0 || ei < 0 || si < 0 || wi < 0 {
			continue
		}
		gs := c.cols(evidence.RoleGroup)
		byAgg := map[string]*ReperformanceSeries{}
		findings := map[string]map[string]int64{}
		var aggs []string
		for _, row := range c.rows {
			a := row[ai].Text
			s, ok := byAgg[a]
			if !ok {
				s = &ReperformanceSeries{Check: c, Aggregate: a}
				byAgg[a], findings[a] = s, map[string]int64{}
				aggs = append(aggs, a)
			}
			if fi >= 0 {
				findings[a][row[fi].Text]++
			}
			if len(s.Bars) == maxBars {
				continue
			}
			label := row[wi].Text
			if row[wi].Kind == KindTime {
				label = row[wi].Time.Format("01-02 15:04")
			}
			for _, g := range gs {
				label += " " + row[g].Text
			}
			b := BalanceBar{Label: label, Source: row[ei].Text, Sink: row[si].Text}
			if di >= 0 {
				b.Difference = row[di].Text
			}
			s.Bars = append(s.Bars, b)
		}
		sort.Strings(aggs)
		for _, a := range aggs {
			byAgg[a].Findings = counts(findings[a])
			out = append(out, byAgg[a])
		}
	}
	return out
}

// timeline places, for every failed check whose columns name a window
// (role window_start or window_end), its findings along event time, in run
// order; restarts are those of the replay summary and any instant a
// restart column of timestamp type holds.
func timeline(v *View) *Timeline {
	tl := &Timeline{}
	restarts := map[time.Time]string{}
	if r := v.Summary.Replay; r != nil {
		for _, rs := range r.Restarts {
			restarts[rs.Time.UTC()] = "restart " + itoa(int64(rs.No)) + " " + rs.Time.UTC().Format("15:04:05")
		}
	}
	see := func(t time.Time) {
		if tl.From.IsZero() || t.Before(tl.From) {
			tl.From = t
		}
		if tl.To.IsZero() || t.After(tl.To) {
			tl.To = t
		}
	}
	for _, c := range v.Checks {
		if c.Status != evidence.Fail {
			continue
		}
		si, ei := c.col(evidence.RoleWindowStart, ""), c.col(evidence.RoleWindowEnd, "")
		if si < 0 && ei < 0 {
			continue
		}
		rcols := c.cols(evidence.RoleRestart)
		ln := Lane{Check: c.ID}
		for _, row := range c.rows {
			var m Mark
			if si >= 0 && row[si].Kind == KindTime {
				m.Start = row[si].Time
			}
			if ei >= 0 && row[ei].Kind == KindTime {
				m.End = row[ei].Time
			}
			if m.Start.IsZero() && m.End.IsZero() {
				continue
			}
			if m.Start.IsZero() {
				m.Start = m.End
			}
			if m.End.IsZero() {
				m.End = m.Start
			}
			see(m.Start)
			see(m.End)
			ln.Marks = append(ln.Marks, m)
			for _, ri := range rcols {
				if row[ri].Kind != KindTime {
					continue // a restart label: one of the summary's restarts
				}
				if _, known := restarts[row[ri].Time]; !known {
					restarts[row[ri].Time] = "restart " + row[ri].Time.Format("15:04:05")
				}
			}
		}
		if len(ln.Marks) > 0 {
			tl.Lanes = append(tl.Lanes, ln)
		}
	}
	if len(tl.Lanes) == 0 {
		return nil
	}
	for t := range restarts {
		see(t)
	}
	if !tl.To.After(tl.From) {
		tl.To = tl.From.Add(time.Hour)
	}
	for t, label := range restarts {
		tl.Restarts = append(tl.Restarts, RestartMark{Time: t, Label: label})
	}
	sort.Slice(tl.Restarts, func(i, j int) bool { return tl.Restarts[i].Time.Before(tl.Restarts[j].Time) })
	return tl
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
