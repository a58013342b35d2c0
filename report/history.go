package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// SinceLastRunView is the run history's part of the view: each check's
// exceptions against the control's previous run, the keys resolved since,
// and the recent runs (summary.json history and checks[].since_last_run,
// and the resolved files of the evidence folder).
type SinceLastRunView struct {
	// File is the run history database.
	File string
	// Previous is the run compared with; nil for the control's first run.
	Previous *evidence.HistoryRun
	// Checks are the checks that ran, in run order.
	Checks []SinceCheck
	// Resolved are the keys resolved since the previous run, check by
	// check, each file in its order.
	Resolved []ResolvedKey
	// Runs are the control's recent runs, oldest first, this one last.
	Runs []evidence.HistoryRun
}

// SinceCheck is one check's comparison with the previous run.
type SinceCheck struct {
	ID         string
	Exceptions int64
	evidence.SinceLastRun
}

// ResolvedKey is one key resolved since the previous run.
type ResolvedKey struct {
	Check string
	// Key renders the key columns as col=value, comma-separated (NULL for
	// a NULL value).
	Key                         string
	FirstSeenRun, FirstSeenDate string
	OpenRuns                    Cell
	LastSeenRun                 string
}

// sinceLastRun builds the history part of the view, reading each resolved
// file and checking its rows against the count summary.json states.
func (v *View) sinceLastRun() (*SinceLastRunView, error) {
	h := v.Summary.History
	if h == nil {
		return nil, nil
	}
	out := &SinceLastRunView{File: h.File, Previous: h.PreviousRun, Runs: h.Runs}
	for _, c := range v.Summary.Checks {
		if c.SinceLastRun == nil {
			continue
		}
		out.Checks = append(out.Checks, SinceCheck{ID: c.ID, Exceptions: c.Exceptions, SinceLastRun: *c.SinceLastRun})
		if c.SinceLastRun.ResolvedFile == "" {
			if c.SinceLastRun.Resolved != 0 {
				return nil, fmt.Errorf("report: %s: %d keys resolved but no resolved file named", c.ID, c.SinceLastRun.Resolved)
			}
			continue
		}
		rows, err := v.resolvedRows(c.ID, c.SinceLastRun)
		if err != nil {
			return nil, err
		}
		out.Resolved = append(out.Resolved, rows...)
	}
	return out, nil
}

// resolvedRows reads one resolved file: the key columns, then the four
// columns evidence.ResolvedFileOf names.
func (v *View) resolvedRows(check string, sl *evidence.SinceLastRun) ([]ResolvedKey, error) {
	f, err := v.evidence.Open(sl.ResolvedFile)
	if err != nil {
		return nil, fmt.Errorf("report: resolved keys of %s: %w", check, err)
	}
	defer f.Close()
	rd := newCSVRows(sl.ResolvedFile, f)
	header, err := rd.header()
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	tail := []string{evidence.ColumnFirstSeenRun, evidence.ColumnFirstSeenDate, evidence.ColumnOpenRuns, evidence.ColumnLastSeenRun}
	want := append(append([]string{}, sl.KeyColumns...), tail...)
	if strings.Join(header, "\x00") != strings.Join(want, "\x00") {
		return nil, fmt.Errorf("report: %s has columns %s, want %s", sl.ResolvedFile, strings.Join(header, ","), strings.Join(want, ","))
	}
	n := len(sl.KeyColumns)
	var out []ResolvedKey
	for {
		rec, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		if len(rec) != len(want) {
			return nil, fmt.Errorf("report: %s row %d has %d fields, want %d", sl.ResolvedFile, len(out)+1, len(rec), len(want))
		}
		parts := make([]string, n)
		for i := range n {
			val := "NULL"
			if !rec[i].null {
				val = rec[i].text
			}
			parts[i] = sl.KeyColumns[i] + "=" + val
		}
		key := strings.Join(parts, ", ")
		if n == 0 {
			key = "(the check's one key)"
		}
		out = append(out, ResolvedKey{Check: check, Key: key, FirstSeenRun: rec[n].text, FirstSeenDate: rec[n+1].text,
			OpenRuns: typed(rec[n+2], KindNumber), LastSeenRun: rec[n+3].text})
	}
	if int64(len(out)) != sl.Resolved {
		return nil, fmt.Errorf("report: %s holds %d rows, but summary.json counts %d resolved keys of %s", sl.ResolvedFile, len(out), sl.Resolved, check)
	}
	return out, nil
}

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

// runLabel names a run by its parameters (day=2026-11-29), else its start
// date.
func runLabel(r evidence.HistoryRun) string {
	if len(r.Params) > 0 {
		keys := make([]string, 0, len(r.Params))
		for k := range r.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			if r.Params[k] != envValue {
				parts = append(parts, k+"="+r.Params[k])
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, " ")
		}
	}
	if len(r.StartedAt) >= 10 {
		return r.StartedAt[:10]
	}
	return r.ID
}

// envValue is what the evidence records for an ${env:NAME} parameter
// (spec.EnvValue); it names no run.
const envValue = "(from the environment; not recorded)"

// sinceLastRunSheet writes the workbook's "Since last run" sheet: what the
// run was compared with, each check's new, recurring and resolved keys,
// every resolved key, and the recent runs' exceptions per check.
func (b *workbook) sinceLastRunSheet() error {
	h := b.v.SinceLastRun
	s, err := b.newSheet(sinceLastRunSheet, []float64{28, 40, 26, 16, 14, 16, 40, 60}, 0, "")
	if err != nil {
		return err
	}
	add := func(vs ...any) error { return s.add(vs) }
	if err := add(excelize.Cell{StyleID: b.title, Value: "Since last run: " + b.s.Control.Name}); err != nil {
		return err
	}
	if err := add(b.lbl("Run history"), b.str(h.File)); err != nil {
		return err
	}
	if p := h.Previous; p != nil {
		if err := add(b.lbl("Compared with run"), b.str(p.ID), b.str(p.StartedAt), b.str(paramList(p.Params)), b.statusCell(p.Status)); err != nil {
			return err
		}
	} else if err := add(b.lbl("Compared with run"), b.str("none: the control's first run in this history, so every exception is new")); err != nil {
		return err
	}
	s.skip()
	if err := s.add(b.hdr("Check", "Key columns", "Exception rows", "New keys", "Recurring keys", "Resolved keys", "Resolved keys listed in", "Note")); err != nil {
		return err
	}
	for _, c := range h.Checks {
		if err := add(b.str(c.ID), b.str(strings.Join(c.KeyColumns, ", ")), b.num(c.Exceptions), b.num(c.New), b.num(c.Recurring), b.num(c.Resolved),
			b.str(c.ResolvedFile), b.textCell(b.wrap, c.Note, evidence.SummaryFile)); err != nil {
			return err
		}
	}
	s.skip()
	if err := add(b.lbl(fmt.Sprintf("Resolved since the previous run: %d key(s)", len(h.Resolved)))); err != nil {
		return err
	}
	if err := s.add(b.hdr("Check", "Key", "First seen run", "First seen date", "Open runs", "Last seen run")); err != nil {
		return err
	}
	for _, r := range h.Resolved {
		open, err := b.figure(r.OpenRuns)
		if err != nil {
			return err
		}
		if err := add(b.str(r.Check), b.textCell(b.text, r.Key, evidence.ResolvedFileOf(r.Check)), b.str(r.FirstSeenRun), b.timeCell(r.FirstSeenDate), open, b.str(r.LastSeenRun)); err != nil {
			return err
		}
	}
	if t := b.v.Charts.Trend; t != nil {
		s.skip()
		if err := add(b.lbl(fmt.Sprintf("Exceptions per check over the last %s (the run history; this run last)", plural(len(t.Runs), "run")))); err != nil {
			return err
		}
		head := []string{"Run", "Started (UTC)", "Parameters", "Status"}
		for _, ser := range t.Series {
			head = append(head, ser.Check)
		}
		if err := s.add(b.hdr(head...)); err != nil {
			return err
		}
		for j, r := range t.Runs {
			row := []any{b.str(r.ID), b.timeCell(r.StartedAt), b.str(paramList(r.Params)), b.statusCell(r.Status)}
			for _, ser := range t.Series {
				if ser.Counts[j] < 0 {
					row = append(row, b.str("not run"))
				} else {
					row = append(row, b.num(ser.Counts[j]))
				}
			}
			if err := s.add(row); err != nil {
				return err
			}
		}
	}
	return s.sw.Flush()
}

// sinceLastRunSheet is the name of the history's sheet.
const sinceLastRunSheet = "Since last run"

// paramList renders parameters as name=value, sorted ("" for none).
func paramList(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + p[k]
	}
	return strings.Join(parts, " ")
}
