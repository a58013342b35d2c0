package report

import (
	"sort"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

func (b *workbook) inputs() error {
	s, err := b.newSheet("Inputs", []float64{10, 10, 40, 12, 40, 14, 68, 60}, 1, "")
	if err != nil {
		return err
	}
	if err := s.add(b.hdr("Role", "Kind", "Location", "Rows", "File", "Bytes", "SHA-256", "Details")); err != nil {
		return err
	}
	for _, in := range b.s.Inputs {
		details := detailLines(in.Details)
		height := float64(strings.Count(details, "\n")+1) * 15
		head := []any{b.str(in.Role), b.str(in.Kind), b.str(in.Location), b.num(in.Rows)}
		if len(in.Files) == 0 {
			if err := s.add(append(head, nil, nil, nil, b.textCell(b.wrap, details, evidence.SummaryFile)), excelize.RowOpts{Height: min(height, 409)}); err != nil {
				return err
			}
		}
		for i, f := range in.Files {
			row := append(append([]any(nil), head...), b.str(f.Path), b.num(f.Bytes), b.str(f.SHA256))
			var opts []excelize.RowOpts
			switch {
			case i == 0 && details != "":
				row = append(row, b.textCell(b.wrap, details, evidence.SummaryFile))
				opts = append(opts, excelize.RowOpts{Height: min(height, 409)})
			case validLengthText(f) != "":
				row = append(row, b.textCell(b.wrap, validLengthText(f), evidence.SummaryFile))
			}
			if err := s.add(row, opts...); err != nil {
				return err
			}
		}
		for _, f := range in.Skipped {
			var size, sum any
			if f.SHA256 != "" {
				size, sum = b.num(f.Bytes), b.str(f.SHA256)
			}
			if err := s.add([]any{b.str(in.Role), b.str(in.Kind), b.str(in.Location), nil, b.str(f.Path), size, sum,
				b.textCell(b.wrap, "not read as records: "+skippedText(f), evidence.SummaryFile)}); err != nil {
				return err
			}
		}
	}
	s.skip()
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
	if err := s.add(b.hdr(hdr...)); err != nil {
		return err
	}
	for _, in := range b.s.Inputs {
		for _, c := range in.Columns {
			row := []any{b.str(in.Role), b.str(c.Name), b.str(c.Type)}
			if c.RenamedFrom != "" {
				row = append(row, b.str(c.RenamedFrom))
			}
			if err := s.add(row); err != nil {
				return err
			}
		}
	}
	return s.sw.Flush()
}

func (b *workbook) parameters() error {
	s, err := b.newSheet("Parameters", []float64{32, 90}, 1, "")
	if err != nil {
		return err
	}
	if err := s.add(b.hdr("Parameter", "Value")); err != nil {
		return err
	}
	for _, kv := range b.v.Parameters {
		if err := s.add([]any{b.str(kv[0]), b.textCell(b.text, kv[1], evidence.SummaryFile)}); err != nil {
			return err
		}
	}
	return s.sw.Flush()
}

func (b *workbook) queries() error {
	s, err := b.newSheet("Queries", []float64{26, 22, 26, 120}, 1, "")
	if err != nil {
		return err
	}
	if err := s.add(b.hdr("Check", "Assertion", "Query file", "SQL (run over tables source and sink)")); err != nil {
		return err
	}
	for _, c := range b.v.Checks {
		if c.SQL == "" {
			continue
		}
		file := c.QueryFile
		sql := strings.TrimSpace(c.SQL)
		lines := strings.Count(sql, "\n") + 1
		height := min(float64(lines)*15, 409) // Excel's tallest row
		if err := s.add([]any{b.str(c.ID), b.str(c.Assertion), b.str(file), b.textCell(b.wrap, sql, file)}, excelize.RowOpts{Height: height}); err != nil {
			return err
		}
	}
	return s.sw.Flush()
}

// detailLines renders an input's details as "key: value" lines in key
// order, nested values as JSON.
func detailLines(d map[string]any) string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + ": " + scalar(d[k])
	}
	return strings.Join(keys, "\n")
}
