package report

import (
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// inputsCaps are the widest the Inputs sheet's columns may be: role,
// kind, location, rows, file, bytes, SHA-256 (a hash wraps onto a second
// line rather than widening the page) and details.
var inputsCaps = []float64{10, 16, 30, 12, 30, 14, 34, 56}

// inputs writes the Inputs sheet: one row per file read (its size and
// SHA-256, or why it was not read as records) or per database input (its
// details in plain words, detailRows), then the columns loaded.
func (b *workbook) inputs() error {
	g := b.newGrid("Inputs", inputsCaps, 1)
	g.title = g.add(b.hdr("Role", "Kind", "Location", "Rows", "File", "Bytes", "SHA-256", "Details")...)
	for _, in := range b.s.Inputs {
		details := detailText(in.Details)
		head := []any{b.str(in.Role), b.str(in.Kind), b.str(in.Location), b.num(in.Rows)}
		if len(in.Files) == 0 {
			g.add(append(head, nil, nil, nil, b.textCell(b.wrap, details, evidence.SummaryFile))...)
		}
		for i, f := range in.Files {
			row := append(append([]any(nil), head...), b.str(f.Path), b.num(f.Bytes), b.str(f.SHA256))
			switch {
			case i == 0 && details != "":
				row = append(row, b.textCell(b.wrap, details, evidence.SummaryFile))
			case validLengthText(f) != "":
				row = append(row, b.textCell(b.wrap, validLengthText(f), evidence.SummaryFile))
			}
			g.add(row...)
		}
		for _, f := range in.Skipped {
			var size, sum any
			if f.SHA256 != "" {
				size, sum = b.num(f.Bytes), b.str(f.SHA256)
			}
			g.add(b.str(in.Role), b.str(in.Kind), b.str(in.Location), nil, b.str(f.Path), size, sum,
				b.textCell(b.wrap, "not read as records: "+skippedText(f), evidence.SummaryFile))
		}
	}
	g.skip()
	// A fourth column, the name in the input, only when rename: renamed
	// one (other workbooks keep their layout).
	renamed := false
	for _, in := range b.s.Inputs {
		for _, c := range in.Columns {
			renamed = renamed || c.RenamedFrom != ""
		}
	}
	hdr := []string{"Role", "Column", "Type (as loaded)"}
	if renamed {
		hdr = append(hdr, "Name in the input (rename:)")
	}
	g.add(b.hdr(hdr...)...)
	for _, in := range b.s.Inputs {
		for _, c := range in.Columns {
			row := []any{b.str(in.Role), b.str(c.Name), b.str(c.Type)}
			if c.RenamedFrom != "" {
				row = append(row, b.str(c.RenamedFrom))
			}
			g.add(row...)
		}
	}
	return g.write()
}

func (b *workbook) parameters() error {
	g := b.newGrid("Parameters", []float64{32, 90}, 1)
	g.title = g.add(b.hdr("Parameter", "Value")...)
	for _, kv := range b.v.Parameters {
		g.add(b.str(kv[0]), b.textCell(b.text, kv[1], evidence.SummaryFile))
	}
	return g.write()
}

// sqlRowLines is the most lines of SQL one row of the Queries sheet
// holds: Excel's tallest row (409 points) holds 27 lines.
const sqlRowLines = 25

// queries writes the Queries sheet: the exact SQL of every check, a long
// query over several rows of at most sqlRowLines lines each (wrapped lines
// counted), cut between lines, so that no row is cut off on screen or on
// paper; the pieces in order, joined by newlines, are the query.
func (b *workbook) queries() error {
	caps := []float64{26, 24, 30, 100}
	g := b.newGrid("Queries", caps, 1)
	g.title = g.add(b.hdr("Check", "Assertion", "Query file", "SQL (run over tables source and sink)")...)
	for _, c := range b.v.Checks {
		if c.SQL == "" {
			continue
		}
		file := c.QueryFile
		for i, piece := range sqlPieces(strings.TrimSpace(c.SQL), caps[3]) {
			if i == 0 {
				g.add(b.str(c.ID), b.str(c.Assertion), b.str(file), b.textCell(b.wrap, piece, file))
				continue
			}
			g.add(b.str(c.ID), nil, b.str("(continued)"), b.textCell(b.wrap, piece, file))
		}
	}
	return g.write()
}

// sqlPieces cuts sql between lines into pieces of at most sqlRowLines
// lines each as wrapped in a cell width digits wide (a single line longer
// than that is a piece of its own).
func sqlPieces(sql string, width float64) []string {
	var out []string
	var cur []string
	n := 0
	for _, line := range strings.Split(sql, "\n") {
		l := wrapLines(line, width, false)
		if n > 0 && n+l > sqlRowLines {
			out = append(out, strings.Join(cur, "\n"))
			cur, n = nil, 0
		}
		cur = append(cur, line)
		n += l
	}
	return append(out, strings.Join(cur, "\n"))
}

// detailText renders an input's details (detailRows) as "label: value"
// lines, a value of several lines indented below its label.
func detailText(d map[string]any) string {
	var lines []string
	for _, r := range detailRows(d) {
		if strings.Contains(r.Value, "\n") {
			lines = append(lines, r.Label+":")
			for _, l := range strings.Split(r.Value, "\n") {
				lines = append(lines, "  "+l)
			}
			continue
		}
		lines = append(lines, r.Label+": "+r.Value)
	}
	return strings.Join(lines, "\n")
}
