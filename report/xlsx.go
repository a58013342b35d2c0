package report

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/klauspost/compress/flate"
	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// xlsxWriter writes workbook.xlsx, the auditor's work paper:
//
//   - Summary: the control, the period or snapshot, the run metadata, the
//     population counts of source and sink, the columns compared (how, with
//     which normalisation and tolerance) and those left uncompared, one row
//     per check with its exception count, its tolerances and the sheets
//     holding the rows, the conclusion and empty Prepared by / Reviewed by /
//     Date cells for sign-off;
//   - one sheet per check whose exceptions CSV has rows (a failed check, an
//     informational one, one with rows within a declared tolerance, which
//     its within_tolerance column marks), named after the check id, holding
//     every row of the CSV; past the sheet limit of 1,048,576 rows the rows
//     continue on "<id> (2)", "<id> (3)", … each with the header again;
//   - with a run history, Since last run: the run compared with, each
//     check's new, recurring and resolved keys, every resolved key, and the
//     exceptions per check of the control's recent runs;
//   - Inputs (every file read with its size and SHA-256, or the database
//     details, and the columns loaded), Parameters (the effective spec) and
//     Queries (the exact SQL of every check).
//
// Cells are typed by the view (from each column's DuckDB type and role,
// see kindOf): a number becomes a number cell shown with the decimals it
// has, but a value with more than 15 significant digits — more than Excel
// keeps — stays text, so nothing is rounded; a date or timestamp becomes a
// date cell in UTC (milliseconds at most; a finer value, or one before
// 1900, stays text); id, group, logical-key, checkpoint and location
// columns are always text. Text is stored in cells formatted as Text
// ("@"): a value starting with =, +, -, @, tab or CR is stored as a string
// and is never a formula, not even after the cell is edited. A text longer
// than Excel's 32,767 characters is cut and ends with a visible marker.
// Headers are frozen and carry an autofilter; sheets print landscape, one
// page wide.
//
// The exception rows are streamed from the exceptions CSVs (View.EachRow),
// every one of them.
type xlsxWriter struct {
	// rowsPerSheet caps the data rows (header excluded) of one exceptions
	// sheet; 0 means Excel's limit, xlsxMaxRows-1.
	rowsPerSheet int
}

// xlsxMaxRows is the number of rows an Excel sheet holds, header included.
const xlsxMaxRows = excelize.TotalRows

// xlsxMaxCell is the number of characters (UTF-16 units) a cell holds.
const xlsxMaxCell = excelize.TotalCellChars

// maxExactDigits is how many significant digits Excel keeps of a number.
const maxExactDigits = 15

func init() { Register(xlsxWriter{}) }

func (xlsxWriter) Format() string { return "xlsx" }
func (xlsxWriter) File() string   { return evidence.WorkbookFile }

// Write writes the workbook of v to w, streaming each failed check's rows
// from its exceptions CSV.
func (x xlsxWriter) Write(ctx context.Context, w io.Writer, v *View) error {
	f := excelize.NewFile()
	defer f.Close()
	f.SetZipWriter(fastZip)
	b := &workbook{f: f, v: v, s: v.Summary, used: map[string]bool{}, perSheet: x.rowsPerSheet}
	if b.perSheet <= 0 || b.perSheet > xlsxMaxRows-1 {
		b.perSheet = xlsxMaxRows - 1
	}
	if err := b.styles(); err != nil {
		return fmt.Errorf("xlsx styles: %w", err)
	}
	if err := b.build(ctx); err != nil {
		return err
	}
	if _, err := f.WriteTo(w); err != nil {
		return fmt.Errorf("write workbook: %w", err)
	}
	return nil
}

// workbook is one workbook under construction.
type workbook struct {
	f        *excelize.File
	v        *View
	s        *evidence.Summary
	used     map[string]bool // sheet names taken, lower case
	perSheet int

	// style ids
	mu                                                                                                           sync.Mutex // guards decimals (rows of several sheets are written at once)
	title, label, header, text, numText, wrap, integer, date, datetime, datetimeMS, pass, fail, skipped, signoff int
	decimals                                                                                                     map[int]int
}

// excPlan is how one failed check's exceptions are laid out.
type excPlan struct {
	c      *CheckView
	sheets []string
}

func (b *workbook) styles() error {
	text := 49 // "@": Text, so an edited cell stays text
	border := []excelize.Border{{Type: "left", Color: "808080", Style: 1}, {Type: "right", Color: "808080", Style: 1}, {Type: "top", Color: "808080", Style: 1}, {Type: "bottom", Color: "808080", Style: 1}}
	top := &excelize.Alignment{Vertical: "top"}
	defs := []struct {
		id *int
		s  *excelize.Style
	}{
		{&b.title, &excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}, NumFmt: text}},
		{&b.label, &excelize.Style{Font: &excelize.Font{Bold: true}, NumFmt: text, Alignment: top}},
		{&b.header, &excelize.Style{Font: &excelize.Font{Bold: true}, NumFmt: text, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"D9E1F2"}},
			Border: []excelize.Border{{Type: "bottom", Color: "000000", Style: 1}}, Alignment: top}},
		{&b.text, &excelize.Style{NumFmt: text, Alignment: top}},
		{&b.numText, &excelize.Style{NumFmt: text, Alignment: &excelize.Alignment{Horizontal: "right", Vertical: "top"}}},
		{&b.wrap, &excelize.Style{NumFmt: text, Alignment: &excelize.Alignment{Vertical: "top", WrapText: true}}},
		{&b.integer, &excelize.Style{NumFmt: 3, Alignment: top}}, // #,##0
		{&b.date, &excelize.Style{CustomNumFmt: ptr("yyyy-mm-dd"), Alignment: top}},
		{&b.datetime, &excelize.Style{CustomNumFmt: ptr("yyyy-mm-dd hh:mm:ss"), Alignment: top}},
		{&b.datetimeMS, &excelize.Style{CustomNumFmt: ptr("yyyy-mm-dd hh:mm:ss.000"), Alignment: top}},
		{&b.pass, &excelize.Style{Font: &excelize.Font{Bold: true, Color: "006100"}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"C6EFCE"}}, NumFmt: text, Alignment: top}},
		{&b.fail, &excelize.Style{Font: &excelize.Font{Bold: true, Color: "9C0006"}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"FFC7CE"}}, NumFmt: text, Alignment: top}},
		{&b.skipped, &excelize.Style{Font: &excelize.Font{Italic: true, Color: "7F7F7F"}, NumFmt: text, Alignment: top}},
		{&b.signoff, &excelize.Style{Border: border, NumFmt: text}},
	}
	for _, d := range defs {
		id, err := b.f.NewStyle(d.s)
		if err != nil {
			return err
		}
		*d.id = id
	}
	b.decimals = map[int]int{0: b.integer}
	return nil
}

// decimalStyle is the number style showing scale decimals (#,##0.00…).
func (b *workbook) decimalStyle(scale int) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.decimals[scale]; ok {
		return s, nil
	}
	s, err := b.f.NewStyle(&excelize.Style{CustomNumFmt: ptr("#,##0." + strings.Repeat("0", scale)), Alignment: &excelize.Alignment{Vertical: "top"}})
	if err != nil {
		return 0, err
	}
	b.decimals[scale] = s
	return s, nil
}

func ptr[T any](v T) *T { return &v }

func (b *workbook) build(ctx context.Context) error {
	// Plan the exception sheets first: Summary names them. The view has
	// counted every file's rows against its check.
	var plans []*excPlan
	for _, c := range b.v.Listed() {
		plans = append(plans, &excPlan{c: c})
	}
	if err := b.f.SetSheetName("Sheet1", "Summary"); err != nil {
		return err
	}
	b.used["summary"] = true
	for _, p := range plans {
		n := (p.c.Rows() + int64(b.perSheet) - 1) / int64(b.perSheet)
		for i := int64(1); i <= n; i++ {
			name := b.sheetName(p.c.ID, int(i))
			if _, err := b.f.NewSheet(name); err != nil {
				return err
			}
			p.sheets = append(p.sheets, name)
		}
	}
	tail := []string{"Inputs", "Parameters", "Queries"}
	if b.v.SinceLastRun != nil {
		tail = append([]string{sinceLastRunSheet}, tail...)
	}
	for _, name := range tail {
		b.used[strings.ToLower(name)] = true
		if _, err := b.f.NewSheet(name); err != nil {
			return err
		}
	}
	b.f.SetActiveSheet(0)
	if err := b.f.SetDocProps(&excelize.DocProperties{
		Title:   "Reconciliation " + b.s.Control.Name,
		Subject: b.s.Control.Description,
		Creator: "reconcile " + b.s.Run.ToolVersion,
		Created: b.s.Run.StartedAt, Modified: b.s.Run.FinishedAt,
		Identifier: b.s.Run.ID,
	}); err != nil {
		return err
	}

	if err := b.summary(plans); err != nil {
		return fmt.Errorf("xlsx Summary: %w", err)
	}
	if err := b.exceptionSheets(ctx, plans); err != nil {
		return err
	}
	if b.v.SinceLastRun != nil {
		if err := b.sinceLastRunSheet(); err != nil {
			return fmt.Errorf("xlsx %s: %w", sinceLastRunSheet, err)
		}
	}
	if err := b.inputs(); err != nil {
		return fmt.Errorf("xlsx Inputs: %w", err)
	}
	if err := b.parameters(); err != nil {
		return fmt.Errorf("xlsx Parameters: %w", err)
	}
	if err := b.queries(); err != nil {
		return fmt.Errorf("xlsx Queries: %w", err)
	}
	return nil
}

// sheetName returns a unique, valid sheet name for part n (1-based) of a
// check's exceptions: "<id>" for the first, "<id> (n)" after, cut to
// Excel's 31 characters.
func (b *workbook) sheetName(id string, n int) string {
	base := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`:\/?*[]`, r) {
			return '_'
		}
		return r
	}, id)
	base = strings.Trim(base, "'")
	if base == "" {
		base = "check"
	}
	for k := n; ; k++ {
		suffix := ""
		if k > 1 {
			suffix = fmt.Sprintf(" (%d)", k)
		}
		name := cutRunes(base, excelize.MaxSheetNameLength-utf8.RuneCountInString(suffix)) + suffix
		if !b.used[strings.ToLower(name)] {
			b.used[strings.ToLower(name)] = true
			return name
		}
	}
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// significantDigits counts the significant digits of a plain decimal
// ("-0012.3400" has 3).
func significantDigits(v string) int {
	v = strings.TrimPrefix(v, "-")
	intPart, frac, _ := strings.Cut(v, ".")
	frac = strings.TrimRight(frac, "0")
	digits := strings.TrimLeft(intPart+frac, "0")
	if intPart = strings.TrimLeft(intPart, "0"); intPart == "" {
		// 0.000123: leading zeros of the fraction are not significant
		digits = strings.TrimLeft(frac, "0")
	}
	return len(digits)
}

// cell turns one value of a column profiled p into the value SetRow
// writes; file is where the whole value is, for a cut marker.
func (b *workbook) cell(p Profile, c Cell, file string) (any, error) {
	v := c.Text
	if c.Null || v == "" {
		return nil, nil
	}
	switch c.Kind {
	case KindNumber:
		if significantDigits(v) > maxExactDigits {
			return excelize.Cell{StyleID: b.numText, Value: v}, nil
		}
		// Each value shows the decimals it was written with: a DECIMAL
		// column keeps its scale, and a mixed column (a re-performed figure
		// that is a count on one row and a sum on the next) shows each
		// value as written.
		st, err := b.decimalStyle(decimalsOf(v))
		if err != nil {
			return nil, err
		}
		if !strings.Contains(v, ".") {
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				return excelize.Cell{StyleID: st, Value: n}, nil
			}
		}
		fv, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, err
		}
		return excelize.Cell{StyleID: st, Value: fv}, nil
	case KindTime:
		t := c.Time
		if t.Nanosecond()%int(time.Millisecond) != 0 || t.Year() < 1900 {
			// Excel shows milliseconds at most and no dates before 1900:
			// keep the exact value as text.
			return excelize.Cell{StyleID: b.numText, Value: v}, nil
		}
		st := b.date
		switch {
		case p.Fraction:
			st = b.datetimeMS
		case p.TimeOfDay:
			st = b.datetime
		}
		return excelize.Cell{StyleID: st, Value: t}, nil
	}
	return b.textCell(b.text, v, file), nil
}

// textCell is a text cell of style st, cut to Excel's cell size with a
// marker naming where the whole value is.
func (b *workbook) textCell(st int, v, where string) excelize.Cell {
	return excelize.Cell{StyleID: st, Value: cutCell(v, where)}
}

// cutCell cuts v to xlsxMaxCell UTF-16 units, ending it with a marker that
// says how long the value was and where it is in full.
func cutCell(v, where string) string {
	n := utf16Len(v)
	if n <= xlsxMaxCell {
		return v
	}
	marker := fmt.Sprintf(" …[CUT: %d of %d characters shown; the whole value is in %s]", 0, n, where)
	keep := xlsxMaxCell - utf16Len(marker) - 8 // room for the digits of the count
	var out strings.Builder
	units := 0
	for _, r := range v {
		u := utf16.RuneLen(r)
		if u < 0 {
			u = 1
		}
		if units+u > keep {
			break
		}
		out.WriteRune(r)
		units += u
	}
	fmt.Fprintf(&out, " …[CUT: %d of %d characters shown; the whole value is in %s]", units, n, where)
	return out.String()
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if u := utf16.RuneLen(r); u > 0 {
			n += u
		} else {
			n++
		}
	}
	return n
}

// sheet is a stream-written sheet.
type sheet struct {
	sw   *excelize.StreamWriter
	row  int
	rows int64 // the data rows an exceptions sheet takes (header excluded)
}

// newSheet starts streaming name with the given column widths, the first
// freeze rows frozen, and an autofilter over filter (a range, or ""),
// which is also the sheet's stated dimension.
func (b *workbook) newSheet(name string, widths []float64, freeze int, filter string) (*sheet, error) {
	if filter != "" {
		// Set on the still-empty sheet: the stream writer carries it into
		// the sheet it writes.
		if err := b.f.AutoFilter(name, filter, nil); err != nil {
			return nil, err
		}
	}
	// The stream writer does not track the used range: state it where it
	// is known (readers such as openpyxl trust it), else leave it out.
	if err := b.f.SetSheetDimension(name, filter); err != nil {
		return nil, err
	}
	// Printed, a sheet is landscape and one page wide.
	if err := b.f.SetPageLayout(name, &excelize.PageLayoutOptions{Orientation: ptr("landscape"), FitToWidth: ptr(1), FitToHeight: ptr(0)}); err != nil {
		return nil, err
	}
	if err := b.f.SetSheetProps(name, &excelize.SheetPropsOptions{FitToPage: ptr(true)}); err != nil {
		return nil, err
	}
	sw, err := b.f.NewStreamWriter(name)
	if err != nil {
		return nil, err
	}
	// Last column first: each call puts its <col> in front, and Excel wants
	// them in ascending order.
	for i := len(widths) - 1; i >= 0; i-- {
		if err := sw.SetColWidth(i+1, i+1, widths[i]); err != nil {
			return nil, err
		}
	}
	if freeze > 0 {
		if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: freeze, TopLeftCell: fmt.Sprintf("A%d", freeze+1), ActivePane: "bottomLeft"}); err != nil {
			return nil, err
		}
	}
	return &sheet{sw: sw}, nil
}

// add writes the next row; opts set its height.
func (s *sheet) add(values []any, opts ...excelize.RowOpts) error {
	s.row++
	return s.sw.SetRow(fmt.Sprintf("A%d", s.row), values, opts...)
}

func (s *sheet) skip() { s.row++ }

func (b *workbook) str(v string) excelize.Cell { return excelize.Cell{StyleID: b.text, Value: v} }
func (b *workbook) num(n int64) excelize.Cell  { return excelize.Cell{StyleID: b.integer, Value: n} }
func (b *workbook) lbl(v string) excelize.Cell { return excelize.Cell{StyleID: b.label, Value: v} }
func (b *workbook) hdr(vs ...string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = excelize.Cell{StyleID: b.header, Value: v}
	}
	return out
}

func (b *workbook) statusCell(s evidence.Status) excelize.Cell {
	st := b.skipped
	switch s {
	case evidence.Pass:
		st = b.pass
	case evidence.Fail:
		st = b.fail
	}
	return excelize.Cell{StyleID: st, Value: strings.ToUpper(string(s))}
}

// figure writes a population figure: a number when Excel can hold it
// exactly, else text; "–" when it does not apply.
func (b *workbook) figure(c Cell) (any, error) {
	if c.Null {
		return b.str("–"), nil
	}
	return b.cell(Profile{}, c, evidence.SummaryFile)
}

// capitalize upper-cases the first letter of a label.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func (b *workbook) timeCell(v string) any {
	if t, ok := parseTimestamp(v); ok {
		return excelize.Cell{StyleID: b.datetime, Value: t}
	}
	return b.str(v)
}

func (b *workbook) summary(plans []*excPlan) error {
	r := b.s
	widths := []float64{26, 22, 14, 16, 26, 32, 70}
	s, err := b.newSheet("Summary", widths, 0, "")
	if err != nil {
		return err
	}
	add := func(vs ...any) error { return s.add(vs) }
	if err := add(excelize.Cell{StyleID: b.title, Value: "Reconciliation: " + r.Control.Name}); err != nil {
		return err
	}
	conclusion := b.v.Conclusion("The exceptions are on the sheets named in the table below.")
	// Long texts wrap across the merged columns from..G, the row tall
	// enough for them.
	long := func(label string, first any, from int, text string) error {
		var chars float64
		for _, w := range widths[from-1:] {
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
		toCell, _ := excelize.CoordinatesToCellName(len(widths), s.row)
		return s.sw.MergeCell(fromCell, toCell)
	}
	if err := long("Conclusion", b.statusCell(r.Status), 3, conclusion); err != nil {
		return err
	}
	s.skip()
	if err := add(b.lbl("Control"), b.str(r.Control.Name)); err != nil {
		return err
	}
	if err := long("Description", nil, 2, r.Control.Description); err != nil {
		return err
	}
	if err := long("Period / snapshot", nil, 2, periodOf(r)); err != nil {
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
		if err := add(row...); err != nil {
			return err
		}
	}
	if len(b.v.Population) > 0 {
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
			if err := add(vals...); err != nil {
				return err
			}
		}
		s.skip()
	}
	if len(b.v.Compared) > 0 || len(b.v.Uncompared) > 0 {
		if err := s.add(b.hdr("Column compared", "Source type", "Sink type", "Compared as", "Normalised", "Tolerance")); err != nil {
			return err
		}
		if len(b.v.Compared) == 0 {
			if err := add(b.str("none: no column besides the id, checkpoint and logical key is in both inputs")); err != nil {
				return err
			}
		}
		for _, c := range b.v.Compared {
			if err := add(b.str(c.Column), b.str(c.SourceType), b.str(c.SinkType), b.str(c.How), b.str(dash(c.Normalize)), b.str(dash(c.Tolerance))); err != nil {
				return err
			}
		}
		s.skip()
		if len(b.v.Uncompared) > 0 {
			if err := s.add(b.hdr("Column left uncompared", "In", "Why")); err != nil {
				return err
			}
			for _, u := range b.v.Uncompared {
				if err := add(b.str(u.Column), b.str(u.Input), b.str(u.Reason)); err != nil {
					return err
				}
			}
			s.skip()
		}
	}
	if rp := b.v.Replay; rp != nil {
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
	}
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
		lines := 1 + int(float64(utf8.RuneCountInString(note))/(widths[6]*1.1))
		if err := s.add([]any{b.str(c.ID), b.str(c.Assertion), b.statusCell(c.Status), ex,
			b.str(strings.Join(sheets[c.ID], ", ")), b.str(c.File), b.textCell(b.wrap, note, evidence.SummaryFile)},
			excelize.RowOpts{Height: min(float64(lines)*15+2, 409)}); err != nil {
			return err
		}
	}
	s.skip()
	for _, n := range r.Notes {
		if err := add(b.lbl("Note"), b.str(n)); err != nil {
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
	return s.sw.Flush()
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

// exceptions streams a failed check's rows onto its sheets, each sheet
// starting with the header.
// exceptionSheets writes the sheets of every plan. The sheets and their
// stream writers are made one after another, in plan order (that changes
// the workbook); the rows of the checks are then written side by side, one
// goroutine per check and at most GOMAXPROCS at once (a stream writer's
// SetRow writes only to its own sheet's buffer, and the one style made on
// the way, a number's decimals, is made under b.mu); the sheets are then
// flushed in order. The workbook is the same as written one check after
// another: each sheet's rows come from its own file in file order.
// Measured on the issue-15 benchmark's 310,000 exception rows on 2 cores:
// see the README's performance section. The error of the first plan that
// failed, in plan order, is returned.
func (b *workbook) exceptionSheets(ctx context.Context, plans []*excPlan) error {
	// The number styles first, in the order of their decimal places: made
	// while the rows are written, they would be numbered in whatever order
	// the goroutines reach them.
	var decimals []int
	for _, p := range plans {
		for _, prof := range p.c.Profile {
			decimals = append(decimals, prof.Decimals...)
		}
	}
	slices.Sort(decimals)
	for _, d := range slices.Compact(decimals) {
		if _, err := b.decimalStyle(d); err != nil {
			return err
		}
	}
	sheets := make([][]*sheet, len(plans))
	for i, p := range plans {
		var err error
		if sheets[i], err = b.startSheets(p); err != nil {
			return fmt.Errorf("xlsx %s: %w", p.c.ID, err)
		}
	}
	errs := make([]error, len(plans))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			if errs[i] = b.exceptionRows(ctx, p, sheets[i]); errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	if i := firstErr(errs); i >= 0 {
		return fmt.Errorf("xlsx %s: %w", plans[i].c.ID, errs[i])
	}
	for i, p := range plans {
		for _, s := range sheets[i] {
			if err := s.sw.Flush(); err != nil {
				return fmt.Errorf("xlsx %s: %w", p.c.ID, err)
			}
		}
	}
	return nil
}

// firstErr is the index of the first error of errs that is not a
// cancellation (a check stopped because another failed), or of the first
// error when all are; -1 when none.
func firstErr(errs []error) int {
	first := -1
	for i, err := range errs {
		if err == nil {
			continue
		}
		if !errors.Is(err, context.Canceled) {
			return i
		}
		if first < 0 {
			first = i
		}
	}
	return first
}

// startSheets makes the sheets of one failed check (p.sheets: past
// b.perSheet rows the rows continue on the next), each with its column
// widths, frozen header, autofilter over its rows and the header row.
func (b *workbook) startSheets(p *excPlan) ([]*sheet, error) {
	c := p.c
	header := c.Header()
	widths := make([]float64, len(c.Typed))
	for i, col := range c.Typed {
		prof := c.Profile[i]
		w := prof.Width + 2
		switch {
		case !prof.NonEmpty: // no value: laid out as its header
		case col.Kind == KindNumber:
			w += w / 3 // thousands separators
		case col.Kind == KindTime:
			w = 24
		}
		widths[i] = float64(min(max(w, 8), 60))
	}
	lastCol, err := excelize.ColumnNumberToName(len(header))
	if err != nil {
		return nil, err
	}
	remaining := c.Rows()
	out := make([]*sheet, 0, len(p.sheets))
	for _, name := range p.sheets {
		rows := min(remaining, int64(b.perSheet))
		remaining -= rows
		s, err := b.newSheet(name, widths, 1, fmt.Sprintf("A1:%s%d", lastCol, rows+1))
		if err != nil {
			return nil, err
		}
		s.rows = rows
		if err := s.add(b.hdr(header...)); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// exceptionRows streams every row of one failed check's exceptions file
// into its sheets (made by startSheets), each sheet taking the rows it was
// made for.
func (b *workbook) exceptionRows(ctx context.Context, p *excPlan, sheets []*sheet) error {
	c := p.c
	vals := make([]any, len(c.Typed))
	next := 0
	var s *sheet
	return b.v.EachRow(ctx, c, func(row []Cell) error {
		for s == nil || int64(s.row-1) == s.rows {
			if next == len(sheets) {
				return fmt.Errorf("%s: more rows than the %d counted", c.File, c.Rows())
			}
			s = sheets[next]
			next++
		}
		for j, cell := range row {
			var err error
			if vals[j], err = b.cell(c.Profile[j], cell, c.File); err != nil {
				return fmt.Errorf("%s: %w", c.File, err)
			}
		}
		return s.add(vals)
	})
}

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

// fastZip is the workbook's ZIP writer: parts compressed with Deflate by
// klauspost/compress at its fastest level rather than by archive/zip's
// default (compress/flate level 6), whose compression was a third of the
// workbook's CPU time and, done after the sheets, serial. Measured on the
// 310,000 exception rows of the 10 M Parquet benchmark: 2.02 s → 1.45 s a
// workbook (reading the evidence included), 8.2 MB → 10.0 MB. Any Deflate
// level makes a valid OOXML package (ECMA-376 Part 2, Open Packaging
// Conventions: stored or deflated parts), and one level gives the same
// bytes every run (TestXLSXDeterministic).
func fastZip(w io.Writer) excelize.ZipWriter {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	return zw
}
