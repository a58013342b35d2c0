package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// sheet is a stream-written sheet.
type sheet struct {
	sw   *excelize.StreamWriter
	row  int
	rows int64 // the data rows an exceptions sheet takes (header excluded)
}

// newSheet starts streaming name with the given column widths, the first
// freeze rows frozen, an autofilter over filter (a range, or ""), which is
// also the sheet's stated dimension, and its print setup (printSetup),
// title the row repeated atop every printed page (0: none).
func (b *workbook) newSheet(name string, widths []float64, freeze int, filter string, title int) (*sheet, error) {
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
	if err := b.printSetup(name, widths, title); err != nil {
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

// printSetup sets how sheet name prints: one page wide (as many tall as it
// takes), upright when its columns fit a page upright (portraitWidth) and
// landscape when wider, half-inch margins, the header row title (0: none)
// repeated atop every page (_xlnm.Print_Titles, ECMA-376 Part 1 §18.2.6),
// and a footer naming the sheet, the control and run, and the page.
func (b *workbook) printSetup(name string, widths []float64, title int) error {
	total := 0.0
	for _, w := range widths {
		total += w
	}
	orientation := "portrait"
	if total > portraitWidth {
		orientation = "landscape"
	}
	if err := b.f.SetPageLayout(name, &excelize.PageLayoutOptions{Orientation: &orientation, FitToWidth: ptr(1), FitToHeight: ptr(0)}); err != nil {
		return err
	}
	if err := b.f.SetSheetProps(name, &excelize.SheetPropsOptions{FitToPage: ptr(true)}); err != nil {
		return err
	}
	if err := b.f.SetPageMargins(name, &excelize.PageLayoutMarginsOptions{
		Left: ptr(0.5), Right: ptr(0.5), Top: ptr(0.6), Bottom: ptr(0.7), Header: ptr(0.3), Footer: ptr(0.3),
	}); err != nil {
		return err
	}
	if err := b.f.SetHeaderFooter(name, &excelize.HeaderFooterOptions{OddFooter: b.footer()}); err != nil {
		return err
	}
	if title > 0 {
		return b.f.SetDefinedName(&excelize.DefinedName{
			Name: "_xlnm.Print_Titles", RefersTo: fmt.Sprintf("%s!$%d:$%d", quoteSheet(name), title, title), Scope: name,
		})
	}
	return nil
}

// footer is every sheet's printed footer, in 8 points: the sheet's name
// on the left, "Reconciliation <control> · run <id>" in the middle, "Page
// n of m" on the right. The control's name is cut to keep within the 255
// characters a footer holds; a size code (&8) is never followed by the
// control's or run's own characters, which could be digits.
func (b *workbook) footer() string {
	esc := func(s string) string { return strings.ReplaceAll(s, "&", "&&") }
	return "&L&8&A&C&8Reconciliation " + esc(cutRunes(b.s.Control.Name, 120)) + " · run " + esc(cutRunes(b.s.Run.ID, 60)) + "&R&8Page &P of &N"
}

// quoteSheet quotes a sheet name for a formula reference ('it”s').
func quoteSheet(name string) string {
	return "'" + strings.ReplaceAll(name, "'", "''") + "'"
}

// add writes the next row; opts set its height.
func (s *sheet) add(values []any, opts ...excelize.RowOpts) error {
	s.row++
	return s.sw.SetRow(fmt.Sprintf("A%d", s.row), values, opts...)
}

func (s *sheet) skip() { s.row++ }

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
