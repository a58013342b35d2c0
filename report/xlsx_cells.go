package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

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

func (b *workbook) str(v string) excelize.Cell { return excelize.Cell{StyleID: b.text, Value: v} }

func (b *workbook) num(n int64) excelize.Cell { return excelize.Cell{StyleID: b.integer, Value: n} }

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

// timeCell is a timestamp's cell: a date cell (yyyy-mm-dd) for a date, a
// timestamp cell (yyyy-mm-dd hh:mm:ss) for a timestamp, else text.
func (b *workbook) timeCell(v string) any {
	if t, ok := parseTimestamp(v); ok {
		if len(v) == len("2006-01-02") {
			return excelize.Cell{StyleID: b.date, Value: t}
		}
		return excelize.Cell{StyleID: b.datetime, Value: t}
	}
	return b.str(v)
}
