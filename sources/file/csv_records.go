package file

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

// csvRecords yields the records of one CSV file as an engine's CSV reader
// (DuckDB's read_csv) sees them, each with the physical line it starts on,
// the header excluded. encoding/csv skips empty lines; so does read_csv for
// a file of several columns, but with one column an empty line is a record
// whose one field is empty (a NULL), wherever it stands, at the end of the
// file too. For one column such lines are found from the lines each record
// spans and the file's line count, and yielded as nil records.
type csvRecords struct {
	cr      *csv.Reader
	lines   *lineCounter
	f       sources.ScanFile
	ncols   int
	header  bool
	first   bool
	prevEnd int64           // the last line the previous record (or the header) spans
	held    []string        // a record read past empty lines, yielded after them
	heldBad *badRecordError // or a record of another number of fields
	heldAt  int64
	eof     bool
	// what names the expected field count in messages.
	what string
}

func (s *csvSource) records(r io.Reader, f sources.ScanFile, ncols int) *csvRecords {
	lc := &lineCounter{r: dropMark(r)}
	cr := s.reader(lc)
	cr.FieldsPerRecord = ncols
	cr.ReuseRecord = true
	what := "the header has"
	switch {
	case s.columns != nil:
		what = "columns: names"
	case !s.header:
		what = "the first record has"
	}
	return &csvRecords{cr: cr, lines: lc, f: f, ncols: ncols, header: s.header, first: true, what: what}
}

// next returns the next record (nil for an empty line of a one-column file)
// and its line, or io.EOF.
func (it *csvRecords) next() ([]string, int64, error) {
	for {
		if it.held != nil || it.heldBad != nil {
			if it.ncols == 1 && it.prevEnd+1 < it.heldAt {
				it.prevEnd++
				return nil, it.prevEnd, nil
			}
			if b := it.heldBad; b != nil {
				// A record of another number of fields, read whole: the
				// next one starts after it.
				it.heldBad = nil
				it.prevEnd = it.heldAt + b.spanned
				return nil, 0, b
			}
			rec, at := it.held, it.heldAt
			it.held = nil
			it.prevEnd = at + spannedLines(rec)
			return rec, at, nil
		}
		if it.eof {
			if it.ncols == 1 && it.prevEnd < it.lines.total() {
				it.prevEnd++
				return nil, it.prevEnd, nil
			}
			return nil, 0, io.EOF
		}
		rec, err := it.cr.Read()
		if errors.Is(err, io.EOF) {
			it.eof = true
			continue
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				it.lines.forget(int64(pe.StartLine))
				it.first = false
				it.heldBad, it.heldAt = &badRecordError{
					record: sources.BadRecord{
						Location: fmt.Sprintf("%s:%d", it.f.Name, pe.StartLine),
						Reason:   fmt.Sprintf("%d fields, %s %d", len(rec), it.what, it.ncols),
					},
					spanned: spannedLines(rec),
				}, int64(pe.StartLine)
				continue
			}
			if errors.As(err, &pe) {
				return nil, 0, fmt.Errorf("%s:%d: %w", it.f.Name, pe.StartLine, pe.Err)
			}
			return nil, 0, err
		}
		line, _ := it.cr.FieldPos(0)
		it.restoreCRLF(rec)
		it.lines.forget(int64(line))
		if it.first {
			it.first = false
			if it.header {
				it.prevEnd = int64(line) + spannedLines(rec)
				continue
			}
		}
		it.held, it.heldAt = rec, int64(line)
	}
}

// utf8Mark is the UTF-8 byte-order mark, U+FEFF encoded.
var utf8Mark = []byte("\xef\xbb\xbf")

// dropMark returns the text r reads without a UTF-8 byte-order mark that
// is its first three bytes, so that a mark is never part of the first
// value, quoted or not, nor a line of its own, and a U+FEFF anywhere else
// (the start of a quoted first value) stays. r is a file's text as the
// CSV reader sees it: after decompression, the valid-length cut and, with
// encoding:, decoding to UTF-8, where the mark of a UTF-16 file read as
// utf-16le or utf-16be becomes these bytes too (utf-16 consumes its own);
// the decoded text of a single-byte encoding never starts with them (a
// UTF-8 mark decodes as "ï»¿", which checkText refuses). A read error is
// returned by the first Read after the bytes read before it.
func dropMark(r io.Reader) io.Reader {
	var head [3]byte
	n, err := io.ReadFull(r, head[:])
	switch {
	case n == len(head) && bytes.Equal(head[:], utf8Mark):
		return r
	case err == nil:
		return io.MultiReader(bytes.NewReader(head[:]), r)
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return bytes.NewReader(head[:n])
	default:
		return io.MultiReader(bytes.NewReader(head[:n]), errReader{err})
	}
}

// errReader fails every Read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// restoreCRLF puts back the CRLF line breaks inside the quoted fields of
// rec, the record just read, that encoding/csv turned into LF (its
// readLine normalises every line's CRLF end, and it has no option to keep
// it): DuckDB's read_csv keeps them, so without this a value "a\r\nb"
// would be "a\r\nb" on one path and "a\nb" on the other. Every LF of a
// value is the end of a physical line — the k-th LF of a field starting on
// line L (FieldPos) ends line L+k — and the lineCounter under encoding/csv
// knows which lines ended in CRLF, so the value's bytes are restored
// exactly: a lone CR stays as it was, and LF and CRLF may be mixed.
func (it *csvRecords) restoreCRLF(rec []string) {
	if !it.lines.anyCRLF() { // no line of this record or after ends in CRLF
		return
	}
	for j, v := range rec {
		if strings.IndexByte(v, '\n') < 0 {
			continue
		}
		line, _ := it.cr.FieldPos(j)
		var b strings.Builder
		b.Grow(len(v) + 8)
		for k := int64(line); ; k++ {
			i := strings.IndexByte(v, '\n')
			if i < 0 {
				b.WriteString(v)
				break
			}
			b.WriteString(v[:i])
			if it.lines.crlf(k) {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
			v = v[i+1:]
		}
		rec[j] = b.String()
	}
}

// spannedLines is the number of line breaks inside a record's fields: the
// lines it spans beyond its first (each break, LF or CRLF, holds one LF).
func spannedLines(rec []string) int64 {
	var n int64
	for _, v := range rec {
		n += int64(strings.Count(v, "\n"))
	}
	return n
}

// lineCounter counts the lines of what it reads: a last line without a
// line break counts. It also notes which lines end in CRLF, from the first
// line not forgotten on (see csvRecords.restoreCRLF).
type lineCounter struct {
	r     io.Reader
	n     int64
	last  byte
	bytes bool
	// crlfs are the lines (1-based, ascending) read so far and not
	// forgotten that end in CRLF.
	crlfs []int64
}

func (lc *lineCounter) Read(p []byte) (int, error) {
	n, err := lc.r.Read(p)
	if n > 0 {
		b := p[:n]
		if lc.last != '\r' && bytes.IndexByte(b, '\r') < 0 {
			lc.n += int64(bytes.Count(b, []byte{'\n'}))
		} else {
			prev := lc.last
			for {
				i := bytes.IndexByte(b, '\n')
				if i < 0 {
					break
				}
				lc.n++
				if i > 0 {
					prev = b[i-1]
				}
				if prev == '\r' {
					lc.crlfs = append(lc.crlfs, lc.n)
				}
				prev, b = '\n', b[i+1:]
			}
		}
		lc.last, lc.bytes = p[n-1], true
	}
	return n, err
}

// anyCRLF says a line read and not forgotten ends in CRLF.
func (lc *lineCounter) anyCRLF() bool { return len(lc.crlfs) > 0 }

// crlf says line (read, not forgotten) ends in CRLF.
func (lc *lineCounter) crlf(line int64) bool {
	_, found := slices.BinarySearch(lc.crlfs, line)
	return found
}

// forget drops what it knows of the lines before line.
func (lc *lineCounter) forget(line int64) {
	i, _ := slices.BinarySearch(lc.crlfs, line)
	lc.crlfs = lc.crlfs[i:]
}

// total is the number of lines read so far.
func (lc *lineCounter) total() int64 {
	if lc.bytes && lc.last != '\n' {
		return lc.n + 1
	}
	return lc.n
}

// RecordLines calls fn, in order, with the physical line each record of f —
// a file of sc, a CSV scan — starts on, the header excluded: the numbering
// Read gives __line. It reads f as Read does (decompressed, in the scan's
// dialect), for an engine whose own CSV reader numbers records, not lines.
// It fails for a quote character outside ASCII, and honours ctx every
// BatchRows records.
func RecordLines(ctx context.Context, sc *sources.Scan, f sources.ScanFile, fn func(line int64) error) error {
	if sc.Format != sources.FormatCSV {
		return fmt.Errorf("sources: RecordLines of a %s scan", sc.Format)
	}
	d, q := []rune(sc.Delimiter), []rune(sc.Quote)
	if len(d) != 1 || len(q) != 1 {
		return fmt.Errorf("%w: delimiter and quote must be one character each", sources.ErrInvalidLocation)
	}
	s := &csvSource{delim: d[0], quote: q[0], header: sc.Header}
	if s.quote >= utf8.RuneSelf {
		return fmt.Errorf("%w: quote %q: only an ASCII quote character can be read outside the engine's CSV reader", sources.ErrInvalidLocation, sc.Quote)
	}
	rc, err := fileset.OpenScanFile(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	it := s.records(rc, f, len(sc.Columns))
	for i := 0; ; i++ {
		_, line, err := it.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if i%sources.BatchRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}
