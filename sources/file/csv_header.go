package file

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

// reader is an encoding/csv reader for the source's dialect. encoding/csv
// knows only the double quote: for another (ASCII) quote character the
// bytes pass through swapReader, which exchanges it with '"', and each value
// is swapped back (swapQuotes) — a one-to-one mapping, so the records are
// exactly those written with the chosen quote.
func (s *csvSource) reader(r io.Reader) *csv.Reader {
	cr := csv.NewReader(r)
	cr.Comma = s.delim
	if s.swapped() {
		cr = csv.NewReader(&swapReader{r: r, a: byte(s.quote), b: '"'})
		cr.Comma = s.delim
		if s.delim == '"' {
			cr.Comma = s.quote
		}
	}
	return cr
}

// swapped says the bytes pass through swapReader: the quote is another
// ASCII character than '"'. (Only the header of a file with a non-ASCII
// quote is read here, with '"' quoting; its records are read by the
// engine.)
func (s *csvSource) swapped() bool { return s.quote != '"' && s.quote < utf8.RuneSelf }

// swapReader exchanges bytes a and b in what it reads.
type swapReader struct {
	r    io.Reader
	a, b byte
}

func (sr *swapReader) Read(p []byte) (int, error) {
	n, err := sr.r.Read(p)
	for i, c := range p[:n] {
		switch c {
		case sr.a:
			p[i] = sr.b
		case sr.b:
			p[i] = sr.a
		}
	}
	return n, err
}

// swapQuotes undoes swapReader in one value, byte for byte: quote is
// ASCII, so no byte of a multi-byte character is touched, and a byte that
// is not UTF-8 stays as it is for the UTF-8 check (strings.Map would turn
// it into U+FFFD).
func swapQuotes(v string, quote rune) string {
	q := byte(quote)
	if strings.IndexByte(v, '"') < 0 && strings.IndexByte(v, q) < 0 {
		return v
	}
	b := []byte(v)
	for i, c := range b {
		switch c {
		case q:
			b[i] = '"'
		case '"':
			b[i] = q
		}
	}
	return string(b)
}

// csvHeader returns the column names of a CSV file: its first record, or
// column0… when the file has no header. Names must be non-empty, unique
// (also ignoring case: DuckDB does not tell them apart) and not provenance
// names.
func csvHeader(f sources.ScanFile, delim, quote rune, header bool, enc *textEncoding) ([]string, error) {
	path := f.Name
	rc, err := fileset.OpenScanFile(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	s := &csvSource{delim: delim, quote: quote}
	br := bufio.NewReaderSize(dropMark(enc.decode(rc, f.Name)), headerPeek)
	if err := checkText(path, br, enc); err != nil {
		return nil, err
	}
	cr := s.reader(br)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: the file is empty (not even a header line)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	line, _ := cr.FieldPos(0)
	if header && line > 1 {
		// encoding/csv skips empty lines; DuckDB's read_csv takes the
		// first line, empty, as the header and this one as a record.
		return nil, fmt.Errorf("%s:%d: the header is on line %d, after %d empty line(s); the header must be the file's first line (an engine's CSV reader takes line 1 as the header and the real header as a record): remove the empty lines", path, line, line, line-1)
	}
	if header && len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
		return nil, fmt.Errorf("%s:%d: the first line holds no header (it is empty or white space only, after any byte-order mark); the header must be the file's first line: remove the line", path, line)
	}
	if !header {
		for i := range rec {
			rec[i] = fmt.Sprintf("column%d", i)
		}
		return rec, nil
	}
	seen := map[string]string{}
	for i, c := range rec {
		if s.swapped() {
			c = swapQuotes(c, quote)
			rec[i] = c
		}
		switch {
		case c == "":
			return nil, fmt.Errorf("%s:1: header column %d has no name", path, i+1)
		case seen[strings.ToLower(c)] == c:
			return nil, fmt.Errorf("%s:1: header names column %q twice", path, c)
		case seen[strings.ToLower(c)] != "":
			return nil, fmt.Errorf("%w: %s:1: header columns %q and %q differ only in case; DuckDB, which runs the checks, does not tell them apart", sources.ErrInvalidLocation, path, seen[strings.ToLower(c)], c)
		case strings.ContainsFunc(c, badNameRune):
			return nil, fmt.Errorf("%s:1: header column %d %q holds a byte-order mark or a control character; write the header as plain text", path, i+1, c)
		case c == sources.FileColumn || c == sources.LineColumn || c == sources.RowColumn:
			return nil, fmt.Errorf("%s:1: column name %q is reserved for provenance", path, c)
		}
		if why := enc.checkText(c); why != "" {
			return nil, fmt.Errorf("%s:1: header column %d %q %s", path, i+1, c, why)
		}
		seen[strings.ToLower(c)] = c
	}
	return rec, nil
}

// headerPeek is how much of a file's start (decoded) checkText looks at.
const headerPeek = 64 << 10

// checkText refuses, from the first headerPeek bytes of a file's decoded
// text (br, not consumed), what no CSV reader would read as meant: under
// UTF-8 (enc nil) a UTF-16 byte-order mark (FF FE, FE FF) or a NUL byte,
// which is UTF-16 text (the hint names encoding: utf-16); and line breaks
// that are a CR alone, with no LF (old Mac OS), which neither encoding/csv
// nor DuckDB's read_csv (given the header) takes as line ends: the header
// would swallow the records into column names holding CRs. Under a
// single-byte encoding a UTF-8 byte-order mark (decoded "ï»¿") says the
// declared encoding is wrong.
func checkText(path string, br *bufio.Reader, enc *textEncoding) error {
	b, err := br.Peek(headerPeek)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return err
	}
	if enc == nil && (bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF}) || bytes.IndexByte(b, 0) >= 0) {
		return fmt.Errorf("%s: the file starts with a UTF-16 byte-order mark or holds NUL bytes: it looks like UTF-16 text, not UTF-8; declare encoding: utf-16 (or utf-16le, utf-16be without a byte-order mark)", path)
	}
	if enc != nil && enc.singleByte && bytes.HasPrefix(b, []byte("\u00EF\u00BB\u00BF")) {
		return fmt.Errorf("%s: the file starts with a UTF-8 byte-order mark (EF BB BF), so it is UTF-8 text, not %s; drop encoding: %s", path, enc.name, enc.name)
	}
	if bytes.IndexByte(b, '\r') >= 0 && bytes.IndexByte(b, '\n') < 0 {
		return fmt.Errorf("%s: the line endings are CR only (old Mac OS): a CR alone is not a line break here; convert the file to LF or CRLF line endings", path)
	}
	return nil
}

// badNameRune is a rune a header name may not hold: a byte-order mark
// (U+FEFF, a second one after the mark dropped) or a control character
// (a stray CR, a NUL): the name would print as another.
func badNameRune(r rune) bool { return r == '\uFEFF' || unicode.IsControl(r) }
