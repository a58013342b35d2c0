package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// summaryWidths are the widths of the Summary sheet's columns A to G.
var summaryWidths = []float64{26, 22, 14, 16, 26, 32, 70}

// summary writes the Summary sheet, top to bottom: the control, its
// conclusion and run (summaryHead), the population counts, the columns
// compared and left uncompared, the stream-job replay, one row per check
// naming the sheets of plans that hold its exceptions (summaryChecks),
// the notes and the sign-off boxes.
func (b *workbook) summary(plans []*excPlan) error {
	s, err := b.newSheet("Summary", summaryWidths, 0, "")
	if err != nil {
		return err
	}
	for _, part := range []func(*sheet) error{b.summaryHead, b.summaryPopulation, b.summaryCompared, b.summaryReplay} {
		if err := part(s); err != nil {
			return err
		}
	}
	if err := b.summaryChecks(s, plans); err != nil {
		return err
	}
	if err := b.summarySignOff(s); err != nil {
		return err
	}
	return s.sw.Flush()
}

// longRow writes a row of label, first (when not nil) and text, the text
// merged across columns from..G and wrapping there, the row tall enough
// for it.
func (b *workbook) longRow(s *sheet, label string, first any, from int, text string) error {
	var chars float64
	for _, w := range summaryWidths[from-1:] {
		chars += w
	}
	lines := 1
	for _, para := range strings.Split(text, "\n") {
		lines += int(float64(utf8.RuneCountInString(para)) / (chars * 1.1))
	}
	vals := []any{b.lbl(label)}
	if first != nil {
		vals = append(vals, first)
	}
	vals = append(vals, excelize.Cell{StyleID: b.wrap, Value: cutCell(text, evidence.SummaryFile)})
	if err := s.add(vals, excelize.RowOpts{Height: min(float64(lines)*15+2, 409)}); err != nil {
		return err
	}
	fromCell, _ := excelize.CoordinatesToCellName(from, s.row)
	toCell, _ := excelize.CoordinatesToCellName(len(summaryWidths), s.row)
	return s.sw.MergeCell(fromCell, toCell)
}

// summaryHead writes the title, the conclusion with the run's status, the
// control and its description, the period or snapshot, and the run's
// metadata.
func (b *workbook) summaryHead(s *sheet) error {
	r := b.s
	if err := s.add([]any{excelize.Cell{StyleID: b.title, Value: "Reconciliation: " + r.Control.Name}}); err != nil {
		return err
	}
	conclusion := b.v.Conclusion("The exceptions are on the sheets named in the table below.")
	if err := b.longRow(s, "Conclusion", b.statusCell(r.Status), 3, conclusion); err != nil {
		return err
	}
	s.skip()
	if err := s.add([]any{b.lbl("Control"), b.str(r.Control.Name)}); err != nil {
		return err
	}
	if err := b.longRow(s, "Description", nil, 2, r.Control.Description); err != nil {
		return err
	}
	if err := b.longRow(s, "Period / snapshot", nil, 2, periodOf(r)); err != nil {
		return err
	}
	rows := [][]any{
		nil,
		{b.lbl("Run id"), b.str(r.Run.ID)},
		{b.lbl("Started (UTC)"), b.timeCell(r.Run.StartedAt)},
		{b.lbl("Finished (UTC)"), b.timeCell(r.Run.FinishedAt)},
		{b.lbl("User"), b.str(r.Run.User)},
		{b.lbl("Host"), b.str(r.Run.Host)},
		{b.lbl("reconcile version"), b.str(r.Run.ToolVersion)},
		{b.lbl("DuckDB version"), b.str(r.Run.DuckDBVersion)},
		{b.lbl("Spec file"), b.str(r.Run.Spec)},
		{b.lbl("Spec SHA-256"), b.str(r.Run.SpecSHA256)},
		nil,
	}
	for _, row := range rows {
		if row == nil {
			s.skip()
			continue
		}
		if err := s.add(row); err != nil {
			return err
		}
	}
	return nil
}

// summaryPopulation writes the population counts of source and sink and
// their difference, when the view has them.
func (b *workbook) summaryPopulation(s *sheet) error {
	if len(b.v.Population) == 0 {
		return nil
	}
	if err := s.add(b.hdr("Population", "Source", "Sink", "Difference (sink − source)")); err != nil {
		return err
	}
	for _, row := range b.v.Population {
		vals := []any{b.lbl(capitalize(row.Label))}
		for _, c := range []Cell{row.Source, row.Sink, row.Difference} {
			cell, err := b.figure(c)
			if err != nil {
				return err
			}
			vals = append(vals, cell)
		}
		if err := s.add(vals); err != nil {
			return err
		}
	}
	s.skip()
	return nil
}

// summaryCompared writes the columns compared (types, how, normalisation,
// tolerance) and those left uncompared with why, when the view has any.
func (b *workbook) summaryCompared(s *sheet) error {
	if len(b.v.Compared) == 0 && len(b.v.Uncompared) == 0 {
		return nil
	}
	if err := s.add(b.hdr("Column compared", "Source type", "Sink type", "Compared as", "Normalised", "Tolerance")); err != nil {
		return err
	}
	if len(b.v.Compared) == 0 {
		if err := s.add([]any{b.str("none: no column besides the id, checkpoint and logical key is in both inputs")}); err != nil {
			return err
		}
	}
	for _, c := range b.v.Compared {
		if err := s.add([]any{b.str(c.Column), b.str(c.SourceType), b.str(c.SinkType), b.str(c.How), b.str(dash(c.Normalize)), b.str(dash(c.Tolerance))}); err != nil {
			return err
		}
	}
	s.skip()
	if len(b.v.Uncompared) == 0 {
		return nil
	}
	if err := s.add(b.hdr("Column left uncompared", "In", "Why")); err != nil {
		return err
	}
	for _, u := range b.v.Uncompared {
		if err := s.add([]any{b.str(u.Column), b.str(u.Input), b.str(u.Reason)}); err != nil {
			return err
		}
	}
	s.skip()
	return nil
}

// summaryReplay writes the stream-job replay of a re-performed windowed
// sink: its windows, the restarts seen and the findings each explains, and
// the findings no restart explains.
func (b *workbook) summaryReplay(s *sheet) error {
	rp := b.v.Replay
	if rp == nil {
		return nil
	}
	if err := s.add(b.hdr("Stream-job replay", "", "", "")); err != nil {
		return err
	}
	files := "no restart history given: findings not correlated with restarts"
	if len(rp.RestartFiles) > 0 {
		files = fmt.Sprintf("%d seen, from %s", len(rp.Restarts), strings.Join(rp.RestartFiles, ", "))
	}
	rows := [][]any{
		{b.lbl("Windows"), b.str(fmt.Sprintf("%s over %s; zone-less timestamps read in %s; emission compared: %s", rp.Window, rp.EventTime, rp.TimeZone, rp.Emission))},
		{b.lbl("Restarts"), b.str(files)},
	}
	for _, rs := range rp.Restarts {
		ck := "an unknown checkpoint"
		if rs.RestoredKnown {
			ck = "checkpoint " + rs.Checkpoint
		}
		rows = append(rows, []any{b.lbl(fmt.Sprintf("Restart %d", rs.No)), b.str(fmt.Sprintf("%s UTC from %s; explains %s (%d key(s))", rs.At, ck, countList(rs.Findings), rs.Keys))})
	}
	rows = append(rows, []any{b.lbl("Findings no restart explains"), b.str(fmt.Sprintf("%s (%d key(s))", countList(rp.Unexplained), rp.UnexplainedKeys))})
	for _, row := range rows {
		if err := s.add(row); err != nil {
			return err
		}
	}
	s.skip()
	return nil
}

// summaryChecks writes one row per check: its assertion, status,
// exception count, the sheets of plans that hold its rows, its exceptions
// file and its description with the reason it was skipped, its
// tolerances and notes.
func (b *workbook) summaryChecks(s *sheet, plans []*excPlan) error {
	sheets := map[string][]string{}
	for _, p := range plans {
		sheets[p.c.ID] = p.sheets
	}
	if err := s.add(b.hdr("Check", "Assertion", "Status", "Exceptions", "Sheets", "Exceptions file", "Description")); err != nil {
		return err
	}
	for _, c := range b.v.Checks {
		var ex any = b.num(c.Exceptions)
		note := c.Description
		if c.Status == evidence.Skipped {
			ex = b.str(c.ExceptionsText())
			note = "Skipped: " + c.SkipReason + ". " + note
		}
		if t := c.ToleranceText(); t != "" {
			note += " Tolerance: " + t + "; such rows are listed (within_tolerance true) but are not exceptions."
		}
		for _, n := range c.Notes {
			note += " Note: " + n + "."
		}
		lines := 1 + int(float64(utf8.RuneCountInString(note))/(summaryWidths[6]*1.1))
		if err := s.add([]any{b.str(c.ID), b.str(c.Assertion), b.statusCell(c.Status), ex,
			b.str(strings.Join(sheets[c.ID], ", ")), b.str(c.File), b.textCell(b.wrap, note, evidence.SummaryFile)},
			excelize.RowOpts{Height: min(float64(lines)*15+2, 409)}); err != nil {
			return err
		}
	}
	s.skip()
	return nil
}

// summarySignOff writes the run's notes and the empty Prepared by and
// Reviewed by boxes for a name and a date.
func (b *workbook) summarySignOff(s *sheet) error {
	for _, n := range b.s.Notes {
		if err := s.add([]any{b.lbl("Note"), b.str(n)}); err != nil {
			return err
		}
	}
	s.skip()
	if err := s.add(b.hdr("Sign-off", "Name", "Date", "")); err != nil {
		return err
	}
	box := excelize.Cell{StyleID: b.signoff, Value: ""}
	for _, who := range []string{"Prepared by", "Reviewed by"} {
		if err := s.add([]any{b.lbl(who), box, box}, excelize.RowOpts{Height: 24}); err != nil {
			return err
		}
	}
	return nil
}

// periodOf says as of when the population was taken: the database snapshot
// details of inputs that have them, else the read time of the files.
func periodOf(r *evidence.Summary) string {
	var parts []string
	for _, in := range r.Inputs {
		if len(in.Details) > 0 {
			var asOf []string
			for _, k := range asOfKeys {
				if v, ok := in.Details[k]; ok {
					asOf = append(asOf, k+" "+scalar(v))
				}
			}
			if len(asOf) == 0 {
				d, _ := json.Marshal(in.Details)
				asOf = []string{string(d)}
			}
			parts = append(parts, fmt.Sprintf("%s: %s %s (details on Inputs)", in.Role, in.Kind, strings.Join(asOf, ", ")))
		} else if len(in.Files) > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d file(s) as read at %s (SHA-256 on Inputs)", in.Role, len(in.Files), r.Run.StartedAt))
		}
	}
	return strings.Join(parts, "; ")
}

// asOfKeys are the input details that say as of when a database was read.
var asOfKeys = []string{"database", "snapshot", "transaction_started_at", "wal_lsn", "isolation_level", "offsets_listed_at", "offsets"}
