package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
)

// field is one value of an exceptions CSV: its text, or NULL.
type field struct {
	text string
	null bool
}

// csvRows reads an exceptions CSV as DuckDB's COPY … (FORMAT csv, HEADER
// true) writes it (RFC 4180, header first). DuckDB writes NULL as a field
// with no characters and the empty text as a quoted "": encoding/csv
// returns "" for both, so for each empty field the reader looks at the
// record's raw bytes to tell them apart.
type csvRows struct {
	name string
	cr   *csv.Reader
	raw  *recording
	prev int64 // input offset where the current record starts
	rec  []field
}

// recording is an io.Reader that keeps the bytes read since base, so that
// the raw bytes of the record just parsed are at hand.
type recording struct {
	r    io.Reader
	buf  []byte
	base int64 // input offset of buf[0]
}

func (r *recording) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.buf = append(r.buf, p[:n]...)
	return n, err
}

// drop forgets the bytes before input offset off.
func (r *recording) drop(off int64) {
	k := int(off - r.base)
	r.buf = r.buf[:copy(r.buf, r.buf[k:])]
	r.base = off
}

func newCSVRows(name string, r io.Reader) *csvRows {
	raw := &recording{r: r}
	cr := csv.NewReader(raw)
	cr.ReuseRecord = true
	return &csvRows{name: name, cr: cr, raw: raw}
}

// header reads the first record, the column names.
func (c *csvRows) header() ([]string, error) {
	rec, err := c.next()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file (no header)", c.name)
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, len(rec))
	for i, f := range rec {
		names[i] = f.text
	}
	return names, nil
}

// next returns the next record; the slice is reused by the following call.
// It returns io.EOF after the last record.
func (c *csvRows) next() ([]field, error) {
	vals, err := c.cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.name, err)
	}
	end := c.cr.InputOffset()
	rec := c.raw.buf[c.prev-c.raw.base : end-c.raw.base]
	firstLine, _ := c.cr.FieldPos(0)
	c.rec = c.rec[:0]
	for i, v := range vals {
		f := field{text: v}
		if v == "" {
			line, col := c.cr.FieldPos(i)
			off := lineStart(rec, line-firstLine) + col - 1
			f.null = off >= len(rec) || rec[off] != '"'
		}
		c.rec = append(c.rec, f)
	}
	c.raw.drop(end)
	c.prev = end
	return c.rec, nil
}

// lineStart is the offset in rec of the start of its n-th line (0: rec's
// start).
func lineStart(rec []byte, n int) int {
	off := 0
	for ; n > 0; n-- {
		i := bytes.IndexByte(rec[off:], '\n')
		if i < 0 {
			return len(rec)
		}
		off += i + 1
	}
	return off
}
