package report

import (
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// sinceLastRunSheet writes the workbook's "Since last run" sheet: what the
// run was compared with, each check's new, recurring and resolved keys,
// the recent runs' exceptions per check, and every resolved key — the one
// list that grows with the data, last, its header row printed atop every
// page after the first.
func (b *workbook) sinceLastRunSheet() error {
	h := b.v.SinceLastRun
	caps := []float64{30, 40, 28, 22, 28, 28, 40, 50}
	if t := b.v.Charts.Trend; t != nil {
		for len(caps) < 4+len(t.Series) {
			caps = append(caps, 28) // a check's column of the trend
		}
	}
	g := b.newGrid(sinceLastRunSheet, caps, 0)
	g.heading("Since last run: " + b.s.Control.Name)
	g.long("Run history", nil, 2, h.File)
	if p := h.Previous; p != nil {
		g.add(b.lbl("Compared with run"), b.str(p.ID), b.str(p.StartedAt), b.str(paramList(p.Params)), b.statusCell(p.Status))
	} else {
		g.long("Compared with run", nil, 2, "none: the control's first run in this history, so every exception is new")
	}
	g.skip()
	g.add(b.hdr("Check", "Key columns", "Exception rows", "New keys", "Recurring keys", "Resolved keys", "Resolved keys listed in", "Note")...)
	for _, c := range h.Checks {
		g.add(b.str(c.ID), b.str(strings.Join(c.KeyColumns, ", ")), b.num(c.Exceptions), b.num(c.New), b.num(c.Recurring), b.num(c.Resolved),
			b.str(c.ResolvedFile), b.textCell(b.wrap, c.Note, evidence.SummaryFile))
	}
	if t := b.v.Charts.Trend; t != nil {
		g.skip()
		g.caption(fmt.Sprintf("Exceptions per check over the last %s (the run history; this run last)", plural(len(t.Runs), "run")))
		head := []string{"Run", "Started (UTC)", "Parameters", "Status"}
		for _, ser := range t.Series {
			head = append(head, ser.Check)
		}
		g.add(b.hdr(head...)...)
		for j, r := range t.Runs {
			row := []any{b.str(r.ID), b.timeCell(r.StartedAt), b.str(paramList(r.Params)), b.statusCell(r.Status)}
			for _, ser := range t.Series {
				if ser.Counts[j] < 0 {
					row = append(row, b.str("not run"))
				} else {
					row = append(row, b.num(ser.Counts[j]))
				}
			}
			g.add(row...)
		}
	}
	g.skip()
	g.caption(fmt.Sprintf("Resolved since the previous run: %d key(s)", len(h.Resolved)))
	g.title = g.add(b.hdr("Check", "Key", "First seen run", "First seen date", "Open runs", "Last seen run")...)
	for _, r := range h.Resolved {
		open, err := b.figure(r.OpenRuns)
		if err != nil {
			return err
		}
		g.add(b.str(r.Check), b.textCell(b.text, r.Key, evidence.ResolvedFileOf(r.Check)), b.str(r.FirstSeenRun), b.timeCell(r.FirstSeenDate), open, b.str(r.LastSeenRun))
	}
	return g.write()
}

// sinceLastRunSheet is the name of the history's sheet.
const sinceLastRunSheet = "Since last run"
