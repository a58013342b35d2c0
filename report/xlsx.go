package report

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/checks"
)

// xlsxWriter writes workbook.xlsx, the auditor's work paper:
//
//   - Summary: the control, the period or snapshot, the run metadata, the
//     population counts of source and sink, one row per check with its
//     exception count and the sheets holding the rows, the conclusion and
//     empty Prepared by / Reviewed by / Date cells for sign-off;
//   - one sheet per failed check, named after the check id, holding every
//     row of its exceptions CSV; past the sheet limit of 1,048,576 rows the
//     rows continue on "<id> (2)", "<id> (3)", … each with the header again;
//   - Inputs (every file read with its size and SHA-256, or the database
//     details, and the columns loaded), Parameters (the effective spec) and
//     Queries (the exact SQL of every check).
//
// Cells are typed from the exceptions CSV: a column whose every value is a
// plain decimal becomes numbers (each shown with the decimals it has), but a
// value with more than 15 significant digits — more than Excel keeps —
// stays text, so nothing is rounded; a column whose every value is a
// timestamp becomes date cells in UTC; id columns (the spec's id, logical
// key, group-by and checkpoint columns, and any name ending in "_id" or
// "_ids") are always text. Everything else is text cells formatted as Text
// ("@"): a value starting with =, +, -, @, tab or CR is stored as a string
// and is never a formula, not even after the cell is edited. A text longer
// than Excel's 32,767 characters is cut and ends with a visible marker.
// Headers are frozen and carry an autofilter.
//
// It needs the evidence folder (WriteFolder): the exception rows come from
// the exceptions CSVs, never from the first rows a Result carries.
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
func (xlsxWriter) File() string   { return "workbook.xlsx" }

// Write fails with ErrNeedsFolder: the workbook holds every exception row,
// read from the evidence folder (see WriteFolder).
func (xlsxWriter) Write(context.Context, io.Writer, *Result) error {
	return fmt.Errorf("%w: xlsx reads every exception row from the exceptions CSVs", ErrNeedsFolder)
}

// WriteFolder writes the workbook for r to w, streaming each failed check's
// rows from evidence/<Outcome.File>. It fails if a CSV holds a different
// number of rows than Outcome.Exceptions says.
func (x xlsxWriter) WriteFolder(ctx context.Context, w io.Writer, r *Result, evidence fs.FS) error {
	f := excelize.NewFile()
	defer f.Close()
	b := &workbook{f: f, r: r, evidence: evidence, used: map[string]bool{}, perSheet: x.rowsPerSheet}
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
	r        *Result
	evidence fs.FS
	used     map[string]bool // sheet names taken, lower case
	perSheet int
	ids      map[string]bool // columns that are always text

	// style ids
	title, label, header, text, numText, wrap, integer, date, datetime, datetimeMS, pass, fail, skipped, signoff int
	decimals                                                                                                     map[int]int
}

// excPlan is how one failed check's exceptions are laid out.
type excPlan struct {
	o      *checks.Outcome
	sheets []string
	header []string
	cols   []colStats
	rows   int64
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

// decimals4 is the style of a ratio shown with 4 decimals.
func (b *workbook) decimals4() int {
	st, err := b.decimalStyle(4)
	if err != nil {
		return b.integer
	}
	return st
}

func (b *workbook) build(ctx context.Context) error {
	b.ids = idColumns(b.r)
	// Plan the exception sheets first: Summary names them and states
	// counts that the scan has confirmed.
	var plans []*excPlan
	for _, o := range b.r.Failed() {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := b.scan(o)
		if err != nil {
			return err
		}
		plans = append(plans, p)
	}
	if err := b.f.SetSheetName("Sheet1", "Summary"); err != nil {
		return err
	}
	b.used["summary"] = true
	for _, p := range plans {
		n := (p.rows + int64(b.perSheet) - 1) / int64(b.perSheet)
		for i := int64(1); i <= n; i++ {
			name := b.sheetName(p.o.ID, int(i))
			if _, err := b.f.NewSheet(name); err != nil {
				return err
			}
			p.sheets = append(p.sheets, name)
		}
	}
	for _, name := range []string{"Inputs", "Parameters", "Queries"} {
		b.used[strings.ToLower(name)] = true
		if _, err := b.f.NewSheet(name); err != nil {
			return err
		}
	}
	b.f.SetActiveSheet(0)
	if err := b.f.SetDocProps(&excelize.DocProperties{
		Title:   "Reconciliation " + b.r.Control.Name,
		Subject: b.r.Control.Description,
		Creator: "reconcile " + b.r.Run.ToolVersion,
		Created: b.r.Run.StartedAt, Modified: b.r.Run.FinishedAt,
		Identifier: b.r.Run.ID,
	}); err != nil {
		return err
	}

	if err := b.summary(plans); err != nil {
		return fmt.Errorf("xlsx Summary: %w", err)
	}
	for _, p := range plans {
		if err := b.exceptions(ctx, p); err != nil {
			return fmt.Errorf("xlsx %s: %w", p.o.ID, err)
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

// idColumns are the columns written as text whatever they hold.
func idColumns(r *Result) map[string]bool {
	ids := map[string]bool{}
	if p := r.Parameters; p != nil {
		for _, cols := range [][]string{p.ID, p.LogicalKey, p.GroupBy, {p.Checkpoint}} {
			for _, c := range cols {
				if c != "" {
					ids[c] = true
				}
			}
		}
	}
	return ids
}

func (b *workbook) isID(col string) bool {
	l := strings.ToLower(col)
	return b.ids[col] || l == "id" || strings.HasSuffix(l, "_id") || strings.HasSuffix(l, "_ids") || l == "checkpoint" || strings.HasSuffix(l, "_checkpoint")
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

// colKind is how a column's cells are written.
type colKind int

const (
	kindText colKind = iota
	kindNumber
	kindTime
)

// colStats are what the first pass learns about one column.
type colStats struct {
	kind     colKind
	hasTime  bool // a value with a time of day (times)
	ms       bool // a value with fractional seconds (times)
	width    int  // longest value, in runes, capped
	nonEmpty bool
}

var decimalRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// scan reads a check's exceptions CSV once: it counts the rows, checks the
// count against the outcome and decides each column's kind and width.
func (b *workbook) scan(o *checks.Outcome) (*excPlan, error) {
	fh, err := b.evidence.Open(o.File)
	if err != nil {
		return nil, fmt.Errorf("exceptions of %s: %w", o.ID, err)
	}
	defer fh.Close()
	cr := csv.NewReader(fh)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", o.File, err)
	}
	p := &excPlan{o: o, header: append([]string(nil), header...), cols: make([]colStats, len(header))}
	num := make([]bool, len(header))
	tim := make([]bool, len(header))
	for i, h := range header {
		num[i], tim[i] = !b.isID(h), !b.isID(h)
		p.cols[i].width = utf8.RuneCountInString(h)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.File, err)
		}
		p.rows++
		for i, v := range rec {
			c := &p.cols[i]
			if n := utf8.RuneCountInString(v); n > c.width {
				c.width = n
			}
			if v == "" {
				continue
			}
			c.nonEmpty = true
			if num[i] {
				if !decimalRE.MatchString(v) {
					num[i] = false
				}
			}
			if tim[i] {
				if t, ok := parseTimestamp(v); ok {
					c.hasTime = c.hasTime || len(v) > 10
					c.ms = c.ms || t.Nanosecond() != 0
				} else {
					tim[i] = false
				}
			}
		}
	}
	if p.rows != o.Exceptions {
		return nil, fmt.Errorf("%s holds %d rows, but the check counted %d exceptions", o.File, p.rows, o.Exceptions)
	}
	for i := range p.cols {
		c := &p.cols[i]
		switch {
		case !c.nonEmpty:
			c.kind = kindText
		case num[i]:
			c.kind = kindNumber
		case tim[i]:
			c.kind = kindTime
		}
	}
	return p, nil
}

// timestampRE matches the timestamps DuckDB and ISO 8601 write: a date,
// optionally a time with fractional seconds and a zone.
var timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$`)

// parseTimestamp parses a date or timestamp; one without a zone is UTC
// (reconcile's DuckDB session runs in UTC). The result is in UTC.
func parseTimestamp(s string) (time.Time, bool) {
	if !timestampRE.MatchString(s) {
		return time.Time{}, false
	}
	s = strings.Replace(s, "T", " ", 1)
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
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

// cell turns one CSV value of a column into the value SetRow writes.
func (b *workbook) cell(c *colStats, v, file string) (any, error) {
	if v == "" {
		return nil, nil
	}
	switch c.kind {
	case kindNumber:
		if significantDigits(v) > maxExactDigits {
			return excelize.Cell{StyleID: b.numText, Value: v}, nil
		}
		// Each value shows the decimals it was written with: a DECIMAL
		// column keeps its scale, and a mixed column ("expected" of a
		// count and a sum) shows each value as written.
		scale := 0
		if dot := strings.IndexByte(v, '.'); dot >= 0 {
			scale = len(v) - dot - 1
		}
		st, err := b.decimalStyle(scale)
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
	case kindTime:
		t, _ := parseTimestamp(v)
		if t.Nanosecond()%int(time.Millisecond) != 0 || t.Year() < 1900 {
			// Excel shows milliseconds at most and no dates before 1900:
			// keep the exact value as text.
			return excelize.Cell{StyleID: b.numText, Value: v}, nil
		}
		st := b.date
		switch {
		case c.ms:
			st = b.datetimeMS
		case c.hasTime:
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
	sw  *excelize.StreamWriter
	row int
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

func (b *workbook) statusCell(s string) excelize.Cell {
	st := b.skipped
	switch s {
	case string(checks.Pass):
		st = b.pass
	case string(checks.Fail):
		st = b.fail
	}
	return excelize.Cell{StyleID: st, Value: strings.ToUpper(s)}
}

// amount writes an exact decimal string as a number when Excel can hold it
// exactly, else as text.
func (b *workbook) amount(v string) (any, error) {
	if !decimalRE.MatchString(v) {
		return b.str(v), nil
	}
	return b.cell(&colStats{kind: kindNumber}, v, "summary.json")
}

func (b *workbook) timeCell(v string) any {
	if t, ok := parseTimestamp(v); ok {
		return excelize.Cell{StyleID: b.datetime, Value: t}
	}
	return b.str(v)
}

func (b *workbook) summary(plans []*excPlan) error {
	r := b.r
	widths := []float64{26, 22, 14, 16, 26, 32, 70}
	s, err := b.newSheet("Summary", widths, 0, "")
	if err != nil {
		return err
	}
	add := func(vs ...any) error { return s.add(vs) }
	if err := add(excelize.Cell{StyleID: b.title, Value: "Reconciliation: " + r.Control.Name}); err != nil {
		return err
	}
	conclusion := r.Conclusion("The exceptions are on the sheets named in the table below.")
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
		vals = append(vals, excelize.Cell{StyleID: b.wrap, Value: cutCell(text, "summary.json")})
		if err := s.add(vals, excelize.RowOpts{Height: min(float64(lines)*15+2, 409)}); err != nil {
			return err
		}
		fromCell, _ := excelize.CoordinatesToCellName(from, s.row)
		toCell, _ := excelize.CoordinatesToCellName(len(widths), s.row)
		return s.sw.MergeCell(fromCell, toCell)
	}
	if err := long("Conclusion", b.statusCell(string(r.Status)), 3, conclusion); err != nil {
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
	if t := r.Totals; t != nil {
		if err := s.add(b.hdr("Population", "Source", "Sink", "Difference (sink − source)")); err != nil {
			return err
		}
		if err := add(b.lbl("Rows"), b.num(t.SourceRows), b.num(t.SinkRows), b.num(t.SinkRows-t.SourceRows)); err != nil {
			return err
		}
		if err := add(b.lbl("Distinct ids"), b.num(t.SourceDistinctIDs), b.num(t.SinkDistinctIDs), b.num(t.SinkDistinctIDs-t.SourceDistinctIDs)); err != nil {
			return err
		}
		for _, m := range t.Measures {
			vals := []any{b.lbl("Sum of " + m.Name)}
			for _, v := range []string{m.SourceSum, m.SinkSum, m.Difference} {
				c, err := b.amount(v)
				if err != nil {
					return err
				}
				vals = append(vals, c)
			}
			if err := add(vals...); err != nil {
				return err
			}
		}
		s.skip()
	}
	if rp := r.Replay; rp != nil {
		if err := s.add(b.hdr("Stream-job replay", "", "", "")); err != nil {
			return err
		}
		files := "no restart history given: findings not correlated with restarts"
		if len(rp.RestartFiles) > 0 {
			files = fmt.Sprintf("%d seen, from %s", len(rp.Restarts), strings.Join(rp.RestartFiles, ", "))
		}
		rows := [][]any{
			{b.lbl("Windows"), b.str(fmt.Sprintf("%s over %s; zone-less timestamps read in %s; emission compared: %s", rp.Window, rp.EventTime, rp.TimeZone, rp.Emission))},
			{b.lbl("Source events"), b.num(rp.SourceEvents)},
			{b.lbl("Windows × groups re-performed"), b.num(rp.ExpectedKeys)},
			{b.lbl("Sink rows / distinct keys"), b.num(rp.SinkRows), b.num(rp.SinkDistinctKeys)},
			{b.lbl("Sink rows per key (1.0 = once)"), excelize.Cell{StyleID: b.decimals4(), Value: rp.SinkRowsPerKey}},
			{b.lbl("Restarts"), b.str(files)},
		}
		for _, rs := range rp.Restarts {
			ck := "an unknown checkpoint"
			if rs.RestoredCheckpoint >= 0 {
				ck = fmt.Sprintf("checkpoint %d", rs.RestoredCheckpoint)
			}
			rows = append(rows, []any{b.lbl(fmt.Sprintf("Restart %d", rs.No)), b.str(fmt.Sprintf("%s UTC from %s; explains %s (%d key(s))", rs.Time.UTC().Format("2006-01-02 15:04:05"), ck, countList(rs.Findings), rs.Keys))})
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
		sheets[p.o.ID] = p.sheets
	}
	if err := s.add(b.hdr("Check", "Assertion", "Status", "Exceptions", "Sheets", "Exceptions file", "Description")); err != nil {
		return err
	}
	for _, c := range r.Checks {
		var ex any = b.num(c.Exceptions)
		note := c.Description
		if c.Status == checks.Skipped {
			ex = b.str("–")
			note = "Skipped: " + c.SkipReason + ". " + note
		}
		for _, n := range c.Notes {
			note += " Note: " + n + "."
		}
		lines := 1 + int(float64(utf8.RuneCountInString(note))/(widths[6]*1.1))
		if err := s.add([]any{b.str(c.ID), b.str(c.Assertion), b.statusCell(string(c.Status)), ex,
			b.str(strings.Join(sheets[c.ID], ", ")), b.str(c.File), b.textCell(b.wrap, note, "summary.json")},
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
func periodOf(r *Result) string {
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

func (b *workbook) exceptions(ctx context.Context, p *excPlan) error {
	fh, err := b.evidence.Open(p.o.File)
	if err != nil {
		return err
	}
	defer fh.Close()
	cr := csv.NewReader(fh)
	cr.ReuseRecord = true
	if _, err := cr.Read(); err != nil {
		return err
	}
	widths := make([]float64, len(p.cols))
	for i, c := range p.cols {
		w := c.width + 2
		switch c.kind {
		case kindNumber:
			w += w / 3 // thousands separators
		case kindTime:
			w = 24
		}
		widths[i] = float64(min(max(w, 8), 60))
	}
	lastCol, err := excelize.ColumnNumberToName(len(p.header))
	if err != nil {
		return err
	}
	remaining := p.rows
	for _, name := range p.sheets {
		n := min(remaining, int64(b.perSheet))
		remaining -= n
		s, err := b.newSheet(name, widths, 1, fmt.Sprintf("A1:%s%d", lastCol, n+1))
		if err != nil {
			return err
		}
		if err := s.add(b.hdr(p.header...)); err != nil {
			return err
		}
		vals := make([]any, len(p.header))
		for i := int64(0); i < n; i++ {
			if i%65536 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			rec, err := cr.Read()
			if err != nil {
				return fmt.Errorf("%s: %w", p.o.File, err)
			}
			for j, v := range rec {
				if vals[j], err = b.cell(&p.cols[j], v, p.o.File); err != nil {
					return fmt.Errorf("%s: %w", p.o.File, err)
				}
			}
			if err := s.add(vals); err != nil {
				return err
			}
		}
		if err := s.sw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func (b *workbook) inputs() error {
	s, err := b.newSheet("Inputs", []float64{10, 10, 40, 12, 40, 14, 68, 60}, 1, "")
	if err != nil {
		return err
	}
	if err := s.add(b.hdr("Role", "Kind", "Location", "Rows", "File", "Bytes", "SHA-256", "Details")); err != nil {
		return err
	}
	for _, in := range b.r.Inputs {
		details := detailLines(in.Details)
		height := float64(strings.Count(details, "\n")+1) * 15
		head := []any{b.str(in.Role), b.str(in.Kind), b.str(in.Location), b.num(in.Rows)}
		if len(in.Files) == 0 {
			if err := s.add(append(head, nil, nil, nil, b.textCell(b.wrap, details, "summary.json")), excelize.RowOpts{Height: min(height, 409)}); err != nil {
				return err
			}
		}
		for i, f := range in.Files {
			row := append(append([]any(nil), head...), b.str(f.Path), b.num(f.Bytes), b.str(f.SHA256))
			var opts []excelize.RowOpts
			if i == 0 && details != "" {
				row = append(row, b.textCell(b.wrap, details, "summary.json"))
				opts = append(opts, excelize.RowOpts{Height: min(height, 409)})
			}
			if err := s.add(row, opts...); err != nil {
				return err
			}
		}
		for _, f := range in.Ignored {
			if err := s.add([]any{b.str(in.Role), b.str(in.Kind), b.str(in.Location), nil, b.str(f), nil, b.str("not read: hidden or temporary file")}); err != nil {
				return err
			}
		}
	}
	s.skip()
	if err := s.add(b.hdr("Role", "Column", "Type (as loaded)")); err != nil {
		return err
	}
	for _, in := range b.r.Inputs {
		for _, c := range in.Columns {
			if err := s.add([]any{b.str(in.Role), b.str(c.Name), b.str(c.Type)}); err != nil {
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
	kvs, err := flatten(b.r.Parameters)
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		if err := s.add([]any{b.str(kv[0]), b.textCell(b.text, kv[1], "summary.json")}); err != nil {
			return err
		}
	}
	return s.sw.Flush()
}

// flatten lists v's JSON form as (dotted key, value) pairs in key order;
// lists of scalars are joined with ", ".
func flatten(v any) ([][2]string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return nil, err
	}
	var out [][2]string
	var walk func(prefix string, t any)
	walk = func(prefix string, t any) {
		switch t := t.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, t[k])
			}
		case []any:
			scalars := make([]string, 0, len(t))
			for _, e := range t {
				switch e.(type) {
				case map[string]any, []any:
				default:
					scalars = append(scalars, scalar(e))
				}
			}
			if len(scalars) == len(t) {
				out = append(out, [2]string{prefix, strings.Join(scalars, ", ")})
				return
			}
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", prefix, i), e)
			}
		default:
			out = append(out, [2]string{prefix, scalar(t)})
		}
	}
	walk("", tree)
	return out, nil
}

func scalar(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		d, _ := json.Marshal(v)
		return string(d)
	}
}

func (b *workbook) queries() error {
	s, err := b.newSheet("Queries", []float64{26, 22, 26, 120}, 1, "")
	if err != nil {
		return err
	}
	if err := s.add(b.hdr("Check", "Assertion", "Query file", "SQL (run over tables source and sink)")); err != nil {
		return err
	}
	for _, c := range b.r.Checks {
		if c.SQL == "" {
			continue
		}
		file := "queries/" + c.ID + ".sql"
		sql := strings.TrimSpace(c.SQL)
		lines := strings.Count(sql, "\n") + 1
		height := min(float64(lines)*15, 409) // Excel's tallest row
		if err := s.add([]any{b.str(c.ID), b.str(c.Assertion), b.str(file), b.textCell(b.wrap, sql, file)}, excelize.RowOpts{Height: height}); err != nil {
			return err
		}
	}
	return s.sw.Flush()
}
