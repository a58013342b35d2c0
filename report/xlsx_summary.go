package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// summaryCaps are the widths the Summary sheet's columns A to G wrap down
// to when the page needs it (grid, fitWidths): the checks' descriptions in
// G, and in B to D the column types, ways of comparing and reasons that
// share those columns with narrow figures. B holds the run's start and
// finish, whose 19 characters fit 22.
var summaryCaps = []float64{26, 22, 14, 14, 26, 40, 56}

// summary writes the Summary sheet, top to bottom: the control, its
// conclusion and run (summaryHead), the population counts, the columns
// compared and left uncompared, the stream-job replay, one row per check
// naming the sheets of plans that hold its exceptions (summaryChecks),
// the notes and the sign-off boxes. Printed, the checks' header row repeats
// atop every page after the first.
func (b *workbook) summary(plans []*excPlan) error {
	g := b.newGrid("Summary", summaryCaps, 0)
	b.summaryHead(g)
	if err := b.summaryPopulation(g); err != nil {
		return err
	}
	b.summaryCompared(g)
	b.summaryReplay(g)
	b.summaryChecks(g, plans)
	b.summarySignOff(g)
	return g.write()
}

// summaryHead writes the title, the conclusion with the run's status, the
// control and its description, the period or snapshot, and the run's
// metadata.
func (b *workbook) summaryHead(g *grid) {
	r := b.s
	g.heading("Reconciliation: " + r.Control.Name)
	g.long("Conclusion", b.statusCell(r.Status), 3, b.v.Conclusion("The exceptions are on the sheets named in the table below."))
	g.skip()
	g.long("Control", nil, 2, r.Control.Name)
	g.long("Description", nil, 2, r.Control.Description)
	g.long("Period / snapshot", nil, 2, periodOf(r))
	g.skip()
	g.long("Run id", nil, 2, r.Run.ID)
	g.add(b.lbl("Started (UTC)"), b.timeCell(r.Run.StartedAt))
	g.add(b.lbl("Finished (UTC)"), b.timeCell(r.Run.FinishedAt))
	for _, kv := range [][2]string{
		{"User", r.Run.User}, {"Host", r.Run.Host}, {"reconcile version", r.Run.ToolVersion},
		{"DuckDB version", r.Run.DuckDBVersion}, {"Spec file", r.Run.Spec}, {"Spec SHA-256", r.Run.SpecSHA256},
	} {
		g.long(kv[0], nil, 2, kv[1])
	}
	g.skip()
}

// summaryPopulation writes the population counts of source and sink and
// their difference, when the view has them.
func (b *workbook) summaryPopulation(g *grid) error {
	if len(b.v.Population) == 0 {
		return nil
	}
	g.add(b.hdr("Population", "Source", "Sink", "Difference (sink − source)")...)
	for _, row := range b.v.Population {
		vals := []any{b.lbl(capitalize(row.Label))}
		for _, c := range []Cell{row.Source, row.Sink, row.Difference} {
			cell, err := b.figure(c)
			if err != nil {
				return err
			}
			vals = append(vals, cell)
		}
		g.add(vals...)
	}
	g.skip()
	return nil
}

// summaryCompared writes the columns compared (types, how, normalisation,
// tolerance) and those left uncompared with why, when the view has any.
func (b *workbook) summaryCompared(g *grid) {
	if len(b.v.Compared) == 0 && len(b.v.Uncompared) == 0 {
		return
	}
	g.add(b.hdr("Column compared", "Source type", "Sink type", "Compared as", "Normalised", "Tolerance")...)
	if len(b.v.Compared) == 0 {
		g.rows = append(g.rows, gridRow{cells: []any{b.str("none: no column besides the id, checkpoint and logical key is in both inputs")}, from: 1})
	}
	for _, c := range b.v.Compared {
		g.add(b.str(c.Column), b.str(c.SourceType), b.str(c.SinkType), b.str(c.How), b.str(dash(c.Normalize)), b.str(dash(c.Tolerance)))
	}
	g.skip()
	if len(b.v.Uncompared) == 0 {
		return
	}
	g.add(b.hdr("Column left uncompared", "In", "Why")...)
	for _, u := range b.v.Uncompared {
		g.add(b.str(u.Column), b.str(u.Input), b.str(u.Reason))
	}
	g.skip()
}

// summaryReplay writes the stream-job replay of a re-performed windowed
// sink: its windows, the restarts seen and the findings each explains, and
// the findings no restart explains.
func (b *workbook) summaryReplay(g *grid) {
	rp := b.v.Replay
	if rp == nil {
		return
	}
	g.add(b.hdr("Stream-job replay", "", "", "")...)
	files := "no restart history given: findings not correlated with restarts"
	if len(rp.RestartFiles) > 0 {
		files = fmt.Sprintf("%d seen, from %s", len(rp.Restarts), strings.Join(rp.RestartFiles, ", "))
	}
	g.long("Windows", nil, 2, fmt.Sprintf("%s over %s; zone-less timestamps read in %s; emission compared: %s", rp.Window, rp.EventTime, rp.TimeZone, rp.Emission))
	g.long("Restarts", nil, 2, files)
	for _, rs := range rp.Restarts {
		ck := "an unknown checkpoint"
		if rs.RestoredKnown {
			ck = "checkpoint " + rs.Checkpoint
		}
		g.long(fmt.Sprintf("Restart %d", rs.No), nil, 2, fmt.Sprintf("%s UTC from %s; explains %s (%d key(s))", rs.At, ck, countList(rs.Findings), rs.Keys))
	}
	g.long("Findings no restart explains", nil, 2, fmt.Sprintf("%s (%d key(s))", countList(rp.Unexplained), rp.UnexplainedKeys))
	g.skip()
}

// summaryChecks writes one row per check: its assertion, status,
// exception count, the sheets of plans that hold its rows, its exceptions
// file and its description with the reason it was skipped, its
// tolerances and notes. Its header row is the one printed atop every page.
func (b *workbook) summaryChecks(g *grid, plans []*excPlan) {
	sheets := map[string][]string{}
	for _, p := range plans {
		sheets[p.c.ID] = p.sheets
	}
	g.title = g.add(b.hdr("Check", "Assertion", "Status", "Exceptions", "Sheets", "Exceptions file", "Description")...)
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
		g.add(b.str(c.ID), b.str(c.Assertion), b.statusCell(c.Status), ex,
			b.str(strings.Join(sheets[c.ID], ", ")), b.str(c.File), b.textCell(b.wrap, note, evidence.SummaryFile))
	}
	g.skip()
}

// summarySignOff writes the run's notes, each wrapped across columns B to
// G, and the empty Prepared by and Reviewed by boxes for a name and a
// date.
func (b *workbook) summarySignOff(g *grid) {
	for _, n := range b.s.Notes {
		g.long("Note", nil, 2, n)
	}
	g.skip()
	g.add(b.hdr("Sign-off", "Name", "Date", "")...)
	box := excelize.Cell{StyleID: b.signoff, Value: ""}
	for _, who := range []string{"Prepared by", "Reviewed by"} {
		g.addTall(24, b.lbl(who), box, box)
	}
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
