package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// The workbook's layout: column widths from the content, text that does
// not fit wrapped in rows tall enough for its lines, and each sheet's
// print setup. Excel and LibreOffice size neither: a column keeps the
// width the file states, and a row the height it states — a row holding
// merged cells is never fitted to its text, and Excel does not fit rows
// when it opens a file — so the workbook states both, measured here.
//
// Widths are in Excel's unit, the width of one digit of the default font
// (Calibri 11; LibreOffice lays it out with the metric-compatible
// Carlito). Text is measured with Calibri's advance widths (charWidth)
// and a margin (measure) that errs wide: a column may come out a little
// wider than its text, never narrower, and a wrapped text a line taller,
// never cut (TestTextWidth holds the measure against widths LibreOffice
// printed; TestWorkbookPrints checks the printed pages).

const (
	// cellPad is the room a cell keeps besides its text: Excel's 5 pixels
	// of padding (0.7 digit) and a little more.
	cellPad = 1.0
	// lineHeight is the height in points of one line of 11-point text
	// (Excel's default row height); titleLineHeight of the 14-point title.
	lineHeight      = 15.0
	titleLineHeight = 19.0
	// maxRowHeight is the tallest row Excel holds, in points.
	maxRowHeight = 409.0
	// portraitWidth is the widest sheet, in digit widths, printed upright:
	// a Letter or A4 page less half-inch margins holds about 97 at 100 %;
	// a wider sheet prints landscape, where the page holds about 135 —
	// landscapeWidth, up to which a column wider than its cap keeps its
	// width (fitWidths).
	portraitWidth  = 95.0
	landscapeWidth = 135.0
)

// fitWidths are the widths of columns whose content is natural wide and
// which wrap down to caps: each column as wide as its content while the
// sheet fits landscapeWidth; past that, the columns wider than their caps
// are narrowed — the widest first, to a common level no lower than each
// cap — until it fits or every such column is at its cap (then the sheet
// prints smaller, fit to the page's width).
func fitWidths(natural, caps []float64) []float64 {
	return fitWidthsTo(natural, caps, landscapeWidth)
}

// fitWidthsTo is fitWidths for a sheet target digits wide.
func fitWidthsTo(natural, caps []float64, target float64) []float64 {
	width := func(level float64) ([]float64, float64) {
		out, total := make([]float64, len(natural)), 0.0
		for i, n := range natural {
			out[i] = min(n, max(caps[i], level))
			total += out[i]
		}
		return out, total
	}
	hi := 0.0
	for _, n := range natural {
		hi = max(hi, n)
	}
	if out, total := width(hi); total <= target {
		return out
	}
	lo := 0.0
	for hi-lo > 0.5 {
		mid := (lo + hi) / 2
		if _, total := width(mid); total <= target {
			lo = mid
		} else {
			hi = mid
		}
	}
	out, _ := width(math.Floor(lo))
	return out
}

// calibriASCII are the advance widths of the printable ASCII characters
// (space to ~) in Calibri regular, in 1/2048 em: Carlito, LibreOffice's
// stand-in, has the same metrics. A digit is 1038.
var calibriASCII = [95]int16{
	463, 544, 745, 1014, 1038, 1463, 1397, 403, 621, 621, 1014, 1038, 511, 627, 517, 791, // space to /
	1038, 1038, 1038, 1038, 1038, 1038, 1038, 1038, 1038, 1038, 548, 548, 1038, 1038, 1038, 949, // 0 to ?
	1823, 1185, 1114, 1092, 1260, 1000, 941, 1292, 1276, 516, 653, 1064, 861, 1751, 1322, 1356, // @ to O
	1058, 1378, 1112, 941, 998, 1314, 1162, 1822, 1063, 998, 959, 628, 800, 628, 1038, 1024, // P to _
	582, 981, 1076, 866, 1076, 1019, 625, 964, 1076, 470, 490, 931, 470, 1636, 1076, 1080, // ` to o
	1076, 1076, 714, 801, 686, 1076, 925, 1464, 887, 927, 809, 677, 941, 677, 1038, // p to ~
}

// charWidth is the advance width of r in Calibri 11, in digits (a digit
// is 1): the font's own for ASCII (calibriASCII), two for a wide East
// Asian character, and 1.2 for anything else (… – → é alike), erring wide.
func charWidth(r rune) float64 {
	switch {
	case r >= ' ' && r <= '~':
		return float64(calibriASCII[r-' ']) / 1038
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
		return 2
	default:
		return 1.2
	}
}

// boldFactor is how much wider bold Calibri is than regular, at most
// (its digits are as wide; some letters a few per cent wider); measure
// is the margin every measure takes on top.
const (
	boldFactor = 1.06
	measure    = 1.04
)

// textWidth is the width of the widest line of s, in digit widths.
func textWidth(s string, bold bool) float64 {
	widest := 0.0
	for _, line := range strings.Split(s, "\n") {
		w := 0.0
		for _, r := range line {
			w += charWidth(r)
		}
		widest = max(widest, w)
	}
	widest *= measure
	if bold {
		widest *= boldFactor
	}
	return widest
}

// wrapLines is how many lines s takes wrapped in a cell width digits wide
// (padding included): words fill a line while they fit, a word wider than
// the line is broken, and every newline starts a line.
func wrapLines(s string, width float64, bold bool) int {
	avail := max(width-cellPad, 1)
	f := measure
	if bold {
		f *= boldFactor
	}
	lines := 0
	for _, para := range strings.Split(s, "\n") {
		lines++
		used := 0.0
		for i, word := range strings.Split(para, " ") {
			w := 0.0
			for _, r := range word {
				w += charWidth(r) * f
			}
			space := 0.0
			if i > 0 {
				space = charWidth(' ') * f
			}
			switch {
			case used > 0 && used+space+w <= avail:
				used += space + w
			case used == 0 && w <= avail:
				used = w
			default:
				if used > 0 {
					lines++
				}
				// a word wider than the line breaks where the line ends
				for w > avail {
					lines++
					w -= avail
				}
				used = w
			}
		}
	}
	return lines
}

// rowHeight is the height of a row whose tallest cell takes lines lines of
// lineH points each, within Excel's limit.
func rowHeight(lines int, lineH float64) float64 {
	return min(float64(lines)*lineH+3, maxRowHeight)
}

// cellText is the text a cell shows, for measuring: a string as it is, a
// number with its thousands separators and decimals, a date or timestamp
// in its format; bold tells whether its style is bold.
func (b *workbook) cellText(c any) (text string, bold bool) {
	cell, ok := c.(excelize.Cell)
	if !ok {
		return "", false
	}
	bold = cell.StyleID == b.label || cell.StyleID == b.labelWrap || cell.StyleID == b.header ||
		cell.StyleID == b.pass || cell.StyleID == b.fail || cell.StyleID == b.title || cell.StyleID == b.titleWrap
	switch v := cell.Value.(type) {
	case string:
		return v, bold
	case int64:
		return groupThousands(strconv.FormatInt(v, 10)), bold
	case int:
		return groupThousands(strconv.Itoa(v)), bold
	case float64:
		s := strconv.FormatFloat(v, 'f', -1, 64)
		b.mu.Lock()
		scale, ok := b.scaleOf[cell.StyleID]
		b.mu.Unlock()
		if ok {
			s = strconv.FormatFloat(v, 'f', scale, 64)
		}
		return groupThousands(s), bold
	case time.Time:
		switch cell.StyleID {
		case b.date:
			return "2006-01-02", bold
		case b.datetimeMS:
			return "2006-01-02 15:04:05.000", bold
		default:
			return "2006-01-02 15:04:05", bold
		}
	case nil:
		return "", bold
	}
	return fmt.Sprint(cell.Value), bold
}

// groupThousands puts a comma between each group of three digits of the
// integer part of a plain decimal ("-1234567.5" → "-1,234,567.5").
func groupThousands(s string) string {
	sign, digits := "", s
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	intPart, frac, hasFrac := strings.Cut(digits, ".")
	var out strings.Builder
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			out.WriteByte(',')
		}
		out.WriteRune(r)
	}
	if hasFrac {
		return sign + out.String() + "." + frac
	}
	return sign + out.String()
}

// wrapped returns c in the wrapping variant of its style, and how many
// lines its text takes in a cell width digits wide; a cell that is not
// text, or whose text fits on one line, is returned as it is unless merged
// (a merged cell always wraps: its text must not run past the last column).
func (b *workbook) wrapped(c any, width float64, merged bool) (any, int) {
	cell, ok := c.(excelize.Cell)
	if !ok {
		return c, 1
	}
	s, isText := cell.Value.(string)
	if !isText || cell.StyleID == b.numText {
		return c, 1
	}
	text, bold := b.cellText(c)
	if !merged && !strings.Contains(s, "\n") && textWidth(text, bold)+cellPad <= width {
		return c, 1
	}
	if w, ok := b.wrapOf[cell.StyleID]; ok {
		cell.StyleID = w
	}
	return cell, wrapLines(s, width, bold)
}

// grid is a sheet of a few rows laid out whole before it is written
// (Summary, Since last run, Inputs, Parameters, Queries): each column as
// wide as its widest cell, up to the column's cap; a text wider than its
// column, and the text of a row merged across columns, wraps, the row as
// tall as its lines.
type grid struct {
	b      *workbook
	name   string
	caps   []float64 // the widest each column may be; also the sheet's number of columns
	freeze int       // rows frozen at the top
	// title is the row repeated at the top of every printed page (1-based;
	// 0: none).
	title int
	rows  []gridRow
}

// gridRow is one row: nil cells for an empty row; from > 0 merges the last
// cell across columns from..last; height > 0 is the least height.
type gridRow struct {
	cells  []any
	from   int
	height float64
}

func (b *workbook) newGrid(name string, caps []float64, freeze int) *grid {
	return &grid{b: b, name: name, caps: caps, freeze: freeze}
}

// add appends a row of cells and returns its number (1-based).
func (g *grid) add(cells ...any) int {
	g.rows = append(g.rows, gridRow{cells: cells})
	return len(g.rows)
}

// addTall appends a row at least height points tall.
func (g *grid) addTall(height float64, cells ...any) int {
	g.rows = append(g.rows, gridRow{cells: cells, height: height})
	return len(g.rows)
}

func (g *grid) skip() { g.rows = append(g.rows, gridRow{}) }

// long appends a row of label, first (when not nil) and text, the text
// merged across columns from..last and wrapping there.
func (g *grid) long(label string, first any, from int, text string) {
	cells := []any{g.b.lbl(label)}
	if first != nil {
		cells = append(cells, first)
	}
	for len(cells) < from-1 {
		cells = append(cells, nil)
	}
	cells = append(cells, g.b.textCell(g.b.wrap, text, evidence.SummaryFile))
	g.rows = append(g.rows, gridRow{cells: cells, from: from})
}

// caption appends a bold line of text merged across every column.
func (g *grid) caption(text string) {
	g.rows = append(g.rows, gridRow{cells: []any{g.b.lbl(text)}, from: 1})
}

// heading appends the sheet's title, merged across every column.
func (g *grid) heading(text string) {
	g.rows = append(g.rows, gridRow{cells: []any{excelize.Cell{StyleID: g.b.titleWrap, Value: text}}, from: 1})
}

// widths sizes each column to its widest cell that is not merged across
// columns (at least minColWidth, at most maxColWidth), narrowed towards
// its cap as the page needs (fitWidths).
func (g *grid) widths() []float64 {
	w := make([]float64, len(g.caps))
	for i := range w {
		w[i] = minColWidth
	}
	for _, r := range g.rows {
		for i, c := range r.cells {
			if i >= len(w) || r.from > 0 && i >= r.from-1 {
				break
			}
			text, bold := g.b.cellText(c)
			w[i] = max(w[i], textWidth(text, bold)+cellPad)
		}
	}
	for i := range w {
		w[i] = min(math.Ceil(w[i]), maxColWidth)
	}
	return fitWidths(w, g.caps)
}

// minColWidth and maxColWidth are the narrowest and widest column a
// sheet has.
const (
	minColWidth = 6
	maxColWidth = 100
)

// write lays the grid out and streams it into its sheet.
func (g *grid) write() error {
	widths := g.widths()
	s, err := g.b.newSheet(g.name, widths, g.freeze, "", g.title)
	if err != nil {
		return err
	}
	for _, r := range g.rows {
		if r.cells == nil {
			s.skip()
			continue
		}
		cells := make([]any, len(r.cells))
		lines, lineH := 1, lineHeight
		for i, c := range r.cells {
			width, merged := 0.0, r.from > 0 && i == r.from-1
			if i < len(widths) {
				width = widths[i]
			}
			if merged {
				width = 0
				for _, cw := range widths[i:] {
					width += cw
				}
			}
			var n int
			cells[i], n = g.b.wrapped(c, width, merged)
			lines = max(lines, n)
			if cell, ok := c.(excelize.Cell); ok && (cell.StyleID == g.b.title || cell.StyleID == g.b.titleWrap) {
				lineH = titleLineHeight
			}
		}
		var opts []excelize.RowOpts
		if h := r.height; h > 0 || lines > 1 || lineH != lineHeight {
			opts = append(opts, excelize.RowOpts{Height: max(h, rowHeight(lines, lineH))})
		}
		if err := s.add(cells, opts...); err != nil {
			return err
		}
		if r.from > 0 && r.from < len(widths) {
			from, _ := excelize.CoordinatesToCellName(r.from, s.row)
			to, _ := excelize.CoordinatesToCellName(len(widths), s.row)
			if err := s.sw.MergeCell(from, to); err != nil {
				return err
			}
		}
	}
	return s.sw.Flush()
}
