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
