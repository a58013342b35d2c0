package file

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/sources"
)

// FuzzCSV is a round trip through the csv kind's Go reader (csvRecords, as
// readFile drives it): arbitrary field values (the fuzzer's bytes split at
// NUL, grouped into records of 1…4 fields) are written as a CSV file by
// csvWrite, an RFC 4180 writer of its own whose layout the fuzzer chooses —
// the quote character (", ' or `), which fields are quoted beyond those
// that must be, LF or CRLF after each record, blank lines between records,
// a UTF-8 byte-order mark, a header, a last line break or none — and read
// back. Every record must come back with exactly its values (a CR, LF or
// CRLF inside a quoted field byte for byte, as DuckDB's read_csv keeps
// them) and the physical line it starts on; for a one-column file each
// blank line is a record of one empty (NULL) value at its line, as
// read_csv reads it, and for several columns blank lines are skipped. A
// byte-order mark at the start of the file is no part of the first value.
//
// Seeds: testdata/fuzz/FuzzCSV, with the failures it found, each fixed
// and a unit test of its own (TestCSVByteOrderMarkOpensTheFile,
// TestCSVQuoteSwapKeepsBytes): the byte-order mark was taken off the first
// parsed value instead of off the file, so after a mark a quoted first
// field was a bare-quote error (bom-then-quoted-header; the header reader,
// with LazyQuotes, named the column "id" with its quotes) and a blank
// first line a record of one field (bom-then-blank-lines), and a quoted
// first value of a file without a mark lost a U+FEFF it starts with
// (no-bom-quoted-value-starts-feff); with a quote other than ", a value
// holding that quote or " had each byte that is not UTF-8 turned into
// U+FFFD by swapQuotes, so it passed the UTF-8 check readFile makes next
// (quote-backtick-non-utf8-bytes).
//
//	go test -tags duckdb_arrow -run '^$' -fuzz '^FuzzCSV$' -fuzztime 60s ./sources/file/
func FuzzCSV(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, ncols uint8, layout uint64, bom, header bool) {
		if len(data) > 4096 {
			return
		}
		n := 1 + int(ncols%4)
		var recs [][]string
		var rec []string
		for _, v := range bytes.Split(data, []byte{0}) {
			if rec = append(rec, string(v)); len(rec) == n {
				recs, rec = append(recs, rec), nil
			}
		}
		if len(recs) == 0 || header && len(recs) == 1 {
			return
		}
		quote := []rune{'"', '\'', '`'}[layout%3]
		file, want := csvWrite(recs, quote, layout/3, bom, header)

		s := &csvSource{delim: ',', quote: quote, header: header}
		it := s.records(bytes.NewReader(file), sources.ScanFile{Name: "fuzz.csv"}, n)
		var got []csvLine
		for {
			rec, line, err := it.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("file %q (%d columns, quote %q, header %v): %v\nwant:\n%s", file, n, quote, header, err, showCSV(want))
			}
			vals := make([]string, n) // nil: a blank line of a one-column file, one empty value
			for j := range rec {
				vals[j] = rec[j]
				if s.swapped() {
					vals[j] = swapQuotes(vals[j], quote)
				}
			}
			got = append(got, csvLine{line, vals})
		}
		if g, w := showCSV(got), showCSV(want); g != w {
			t.Fatalf("file %q (%d columns, quote %q, header %v) read as\n%s\nwant\n%s", file, n, quote, header, g, w)
		}
	})
}

// csvLine is a record and the line it starts on.
type csvLine struct {
	line int64
	vals []string
}

func showCSV(ls []csvLine) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "%d: %q\n", l.line, l.vals)
	}
	return b.String()
}

// csvWrite writes recs as a CSV file (delimiter ',', quote as given) and
// returns it with the records a reader must yield, each at the line it
// starts on (the first one too when header: it is the header, not
// yielded). The layout bits, from the lowest: per record, 2 bits of blank
// lines before it (0…3), 1 bit CRLF after it (else LF), 1 bit for the
// blank lines' CRLF, then 1 bit per field to quote it when it need not be;
// the bits are reused in turn once spent. Fields that hold the delimiter,
// the quote, CR or LF are always quoted, and so is an empty header field
// of a one-column file (as a blank line it would be no header; a U+FEFF
// alone opening the file is empty, a byte-order mark). The file
// ends with a line break unless the layout's top bit says not to (a last
// record that is a blank line gets one regardless: without it, it is no
// line).
func csvWrite(recs [][]string, quote rune, layout uint64, bom, header bool) ([]byte, []csvLine) {
	bits := layout & (1<<63 - 1)
	finalBreak := layout>>63 == 0
	next := func(k int) uint64 {
		v := bits & (1<<k - 1)
		bits = bits>>k | v<<(63-k) // rotate: the bits are reused
		return v
	}
	q := string(quote)
	var b bytes.Buffer
	if bom {
		b.WriteString("\uFEFF")
	}
	var want []csvLine
	line := int64(1)
	n := len(recs[0])
	for i, rec := range recs {
		blanks := int(next(2))
		crlf := next(1) == 1
		blankCRLF := next(1) == 1
		if i == 0 && header {
			blanks = 0
		}
		for range blanks {
			if blankCRLF {
				b.WriteString("\r\n")
			} else {
				b.WriteString("\n")
			}
			if n == 1 && (i > 0 || !header) {
				want = append(want, csvLine{line, make([]string, 1)})
			}
			line++
		}
		start := line
		vals := make([]string, n)
		blank := n == 1 // the record is written as an empty line
		for j, v := range rec {
			if j > 0 {
				b.WriteByte(',')
			}
			// read is what v reads as unquoted: when its bytes open the
			// file, a U+FEFF it starts with is a byte-order mark (only
			// there: not after a mark, nor after blank lines).
			read := v
			if b.Len() == 0 {
				read = strings.TrimPrefix(v, "\uFEFF")
			}
			must := strings.ContainsAny(v, ",\r\n"+q) || n == 1 && read == "" && i == 0 && header
			if must || next(1) == 1 {
				b.WriteString(q + strings.ReplaceAll(v, q, q+q) + q)
				blank = false
			} else {
				blank = blank && read == ""
				b.WriteString(v)
				v = read
			}
			vals[j] = v
			line += int64(strings.Count(v, "\n"))
		}
		if i < len(recs)-1 || finalBreak || blank {
			if crlf {
				b.WriteString("\r\n")
			} else {
				b.WriteString("\n")
			}
		}
		line++
		if i > 0 || !header {
			want = append(want, csvLine{start, vals})
		}
	}
	return b.Bytes(), want
}
