package report

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/xuri/excelize/v2"
)

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

// headerWidth is the widest a column of an exceptions sheet is made for
// its header alone.
const headerWidth = 14

// excMaxWidth is the narrowest a text column of an exceptions sheet is
// made to fit the page; a column narrower than its values wraps them. A
// sheet that would still print smaller than excMinScale has its text
// columns narrowed further, down to excNarrowWidth, as far as it takes.
const (
	excMaxWidth    = 60
	excNarrowWidth = 20
	excMinScale    = 0.6
)

func sum(ws []float64) float64 {
	t := 0.0
	for _, w := range ws {
		t += w
	}
	return t
}

// startSheets makes the sheets of one failed check (p.sheets: past
// b.perSheet rows the rows continue on the next), each with its column
// widths, frozen header, autofilter over its rows and the header row,
// which is also the row printed atop every page. A column is as wide as
// its longest value or header (the view's profile), a number's with its
// thousands separators, a date's or timestamp's as its format; a text
// column is narrowed to fit the page (fitWidths, down to excMaxWidth), and
// then wraps its values (p.wrap).
func (b *workbook) startSheets(p *excPlan) ([]*sheet, error) {
	c := p.c
	header := c.Header()
	natural, caps, narrow := make([]float64, len(c.Typed)), make([]float64, len(c.Typed)), make([]float64, len(c.Typed))
	for i, col := range c.Typed {
		prof := c.Profile[i]
		w := float64(prof.Width)*1.1 + cellPad
		switch {
		case !prof.NonEmpty: // no value: laid out as its header
			w = 0
		case col.Kind == KindNumber:
			w = float64(prof.Width)*4/3 + cellPad // thousands separators
		case col.Kind == KindTime:
			format := "yyyy-mm-dd"
			switch {
			case prof.Fraction:
				format = "yyyy-mm-dd hh:mm:ss.000"
			case prof.TimeOfDay:
				format = "yyyy-mm-dd hh:mm:ss"
			}
			// a value kept as text (finer than milliseconds, before 1900)
			// is as long as the profile says
			w = max(textWidth(format, false)+cellPad, float64(prof.Width)+cellPad)
		}
		// The header is whole when it is no wider than the values or than
		// headerWidth; a longer one wraps (at any letter, where it has no
		// space) rather than widening a column of short values.
		head := min(textWidth(header[i], true)+cellPad, max(w, headerWidth))
		natural[i] = math.Ceil(min(max(w, head, minColWidth), maxColWidth))
		caps[i], narrow[i] = natural[i], natural[i]
		if col.Kind != KindNumber && col.Kind != KindTime {
			caps[i], narrow[i] = min(natural[i], excMaxWidth), min(natural[i], excNarrowWidth)
		}
	}
	widths := fitWidths(natural, caps)
	if total := sum(widths); total > landscapeWidth/excMinScale {
		// Still too wide to print at excMinScale: the text columns wrap
		// narrower, as far as it takes.
		widths = fitWidthsTo(natural, narrow, landscapeWidth/excMinScale)
	}
	p.wrap = make([]bool, len(widths))
	for i := range widths {
		p.wrap[i] = widths[i] < natural[i]
	}
	headLines := 1
	for i, h := range header {
		headLines = max(headLines, wrapLines(h, widths[i], true))
	}
	var headOpts []excelize.RowOpts
	if headLines > 1 {
		headOpts = append(headOpts, excelize.RowOpts{Height: rowHeight(headLines, lineHeight)})
	}
	lastCol, err := excelize.ColumnNumberToName(len(header))
	if err != nil {
		return nil, err
	}
	p.widths = widths
	remaining := c.Rows()
	out := make([]*sheet, 0, len(p.sheets))
	for _, name := range p.sheets {
		rows := min(remaining, int64(b.perSheet))
		remaining -= rows
		s, err := b.newSheet(name, widths, 1, fmt.Sprintf("A1:%s%d", lastCol, rows+1), 1)
		if err != nil {
			return nil, err
		}
		s.rows = rows
		if err := s.add(b.hdr(header...), headOpts...); err != nil {
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
		lines := 1
		for j, cell := range row {
			var err error
			if vals[j], err = b.cell(c.Profile[j], cell, c.File); err != nil {
				return fmt.Errorf("%s: %w", c.File, err)
			}
			if p.wrap[j] {
				var n int
				vals[j], n = b.wrapped(vals[j], p.widths[j], false)
				lines = max(lines, n)
			}
		}
		if lines > 1 {
			return s.add(vals, excelize.RowOpts{Height: rowHeight(lines, lineHeight)})
		}
		return s.add(vals)
	})
}
