package report

import (
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

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
