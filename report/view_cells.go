package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
)

// decimalsOf is the number of decimal places number text v is written
// with (digits after its point; 0 without one).
func decimalsOf(v string) int {
	if dot := strings.IndexByte(v, '.'); dot >= 0 {
		return len(v) - dot - 1
	}
	return 0
}

// typeRow types one record of the check's exceptions CSV.
func (cv *CheckView) typeRow(rec []field) []Cell {
	row := make([]Cell, len(rec))
	for i, f := range rec {
		row[i] = typed(f, cv.Typed[i].Kind)
	}
	return row
}

// decimalRE is a plain decimal number as DuckDB writes one.
var decimalRE = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// typed is value f read as kind.
func typed(f field, kind Kind) Cell {
	c := Cell{Null: f.null, Text: f.text}
	if f.null || f.text == "" {
		return c
	}
	switch kind {
	case KindNumber:
		if decimalRE.MatchString(f.text) {
			c.Kind = KindNumber
		}
	case KindTime:
		if t, ok := parseTimestamp(f.text); ok {
			c.Kind, c.Time = KindTime, t
		}
	}
	return c
}

// EachRow calls fn with every exception row of c, in file order (the row
// is reused by the next call). It reads c's exceptions CSV again, so a
// report holds one row at a time however many there are.
func (v *View) EachRow(ctx context.Context, c *CheckView, fn func([]Cell) error) error {
	if c.File == "" {
		return nil
	}
	f, err := v.evidence.Open(c.File)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	rd := newCSVRows(c.File, f)
	if _, err := rd.header(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	row := make([]Cell, len(c.Typed))
	var n int64
	for {
		if n%65536 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, err := rd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		n++
		if len(rec) != len(row) {
			return fmt.Errorf("report: %s row %d has %d fields, want %d", c.File, n, len(rec), len(row))
		}
		for i, f := range rec {
			row[i] = typed(f, c.Typed[i].Kind)
		}
		if err := fn(row); err != nil {
			return err
		}
	}
	if n != c.Rows() {
		return fmt.Errorf("report: %s holds %d rows, but the check counted %d (it changed while the reports were written)", c.File, n, c.Rows())
	}
	return nil
}

// timestampRE matches the timestamps DuckDB writes: a date, optionally a
// time with fractional seconds and a zone offset.
var timestampRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$`)

// parseTimestamp parses a DATE, TIMESTAMP or TIMESTAMP WITH TIME ZONE value
// as DuckDB renders it; one without a zone is UTC (reconcile's DuckDB
// session runs in UTC). The result is in UTC.
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
