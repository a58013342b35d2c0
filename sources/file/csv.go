package file

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

func init() {
	sources.Register("csv", openCSV, "tsv", "txt")
}

// csvSource reads delimited text files. Nothing is sniffed: the header is
// read here (a UTF-8 byte-order mark is dropped; every file must have the
// same header), every column is text, an empty field (quoted or not) is
// NULL, and a record with too many or too few fields is an error naming file
// and line. __line is the physical line a record starts on, after blank
// lines and quoted fields that span lines too.
//
// Options: delimiter (default ","; a tab for .tsv), quote (default '"'; a
// quote inside a quoted field is doubled, RFC 4180), header (default true;
// without one, columns are named column0, column1, …), columns (the names
// of a header-less file's columns, in order: header then defaults to false,
// and every record must have that many fields), partitions (see
// Partitions), types, encoding (utf-8 by default; latin-1,
// windows-1252, utf-16, utf-16le, utf-16be are decoded to UTF-8 as the files
// are read, after decompression and the valid-length cut, by Read only),
// and dateformat, timestampformat, decimal_separator, thousands
// (ValueFormats, applied by the loader). Under UTF-8 a value that is not
// UTF-8 is an error naming file, line and column and the option that would
// read it.
//
// Before any record, the start of each file (its first 64 KiB, decoded)
// is refused if it holds CR line breaks without LF, or — under UTF-8 — a
// UTF-16 byte-order mark or NUL bytes (hint: encoding: utf-16), or — under
// a single-byte encoding — starts with a UTF-8 byte-order mark; a header
// name holding a byte-order mark or a control character is refused.
//
// It implements Scanner: an engine may read the files itself (DuckDB's
// read_csv with nothing sniffed). Read parses them with encoding/csv, which
// gives the same records: a CRLF line break inside a quoted field, which
// encoding/csv turns into LF, is restored as CRLF from the bytes it read
// (csvRecords.restoreCRLF), as read_csv keeps it. It implements
// UncommittedReader.
type csvSource struct {
	loc        sources.Location
	delim      rune
	quote      rune
	header     bool
	columns    []string
	partitions *fileset.Partitions
	declared   []sources.Column
	enc        *textEncoding
	formats    sources.ValueFormats
	ls         *fileset.Listed
}

func openCSV(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions("csv", loc.Options)
	def := ","
	if name := strings.ToLower(loc.URI); strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst"), ".tsv") {
		def = "\t"
	}
	delim := o.String("delimiter", def)
	quote := o.String("quote", `"`)
	columns := o.Strings("columns")
	header := o.Bool("header", columns == nil)
	parts := fileset.ReadPartitions(o)
	types := o.Types()
	enc := readEncoding(o)
	formats := o.ValueFormats()
	if err := o.Err(); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(delim) != 1 || utf8.RuneCountInString(quote) != 1 {
		return nil, fmt.Errorf("%w: delimiter and quote must be one character each", sources.ErrInvalidLocation)
	}
	d, q := []rune(delim)[0], []rune(quote)[0]
	if d == q || d == '\n' || d == '\r' || q == '\n' || q == '\r' {
		return nil, fmt.Errorf("%w: delimiter %q and quote %q must differ and be neither CR nor LF", sources.ErrInvalidLocation, delim, quote)
	}
	if columns != nil {
		if header {
			return nil, fmt.Errorf("%w: columns: names the columns of a header-less file; with header: true the files' header names them", sources.ErrInvalidLocation)
		}
		if err := checkNames("option columns", columns); err != nil {
			return nil, err
		}
	}
	if enc != nil && q >= utf8.RuneSelf {
		return nil, fmt.Errorf("%w: quote %q: a file with a declared encoding is read outside the engine's CSV reader, which takes only an ASCII quote character", sources.ErrInvalidLocation, quote)
	}
	return &csvSource{loc: loc, delim: d, quote: q, header: header, columns: columns, partitions: parts, declared: types, enc: enc, formats: formats}, nil
}

func (s *csvSource) Close() error { return nil }

// prepare lists and fingerprints the files and reads their header.
func (s *csvSource) prepare(ctx context.Context) (*sources.Input, []sources.ScanFile, []string, error) {
	in, files, ls, err := fileset.ListInput(ctx, s.loc, "csv", s.declared, s.partitions)
	only := errors.Is(err, fileset.ErrOnlyUncommitted)
	if err != nil && !only {
		return nil, nil, nil, err
	}
	s.ls = ls
	in.Formats = s.formats
	var cols []string
	if only {
		cols, err = s.uncommittedColumns(in.Skipped, err)
	} else {
		cols, err = s.fileColumns(files)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkPartitionNames(cols, in.Partitions); err != nil {
		return nil, nil, nil, err
	}
	return in, files, cols, nil
}

// Schema returns the columns — the columns: option or the files' shared
// header, then the partition columns — each VARCHAR, as every CSV column
// loads before declared types apply, reading only each file's header (its
// committed, decompressed, decoded bytes). Errors are those Read would
// return for the files' listing and headers.
func (s *csvSource) Schema(ctx context.Context) ([]sources.Column, error) {
	files, parts, err := fileset.ListSchema(ctx, s.loc, s.partitions)
	var cols []string
	switch {
	case errors.Is(err, fileset.ErrOnlyUncommitted):
		// No committed file: the columns are the uncommitted files'.
		if _, _, cols, err = s.prepare(ctx); err != nil {
			return nil, err
		}
		parts = s.ls.PartitionNames()
	case err != nil:
		return nil, err
	default:
		if cols, err = s.fileColumns(files); err != nil {
			return nil, err
		}
	}
	if err := checkPartitionNames(cols, parts); err != nil {
		return nil, err
	}
	out := make([]sources.Column, 0, len(cols)+len(parts))
	for _, c := range append(append([]string{}, cols...), parts...) {
		out = append(out, sources.Column{Name: c, Type: "VARCHAR"})
	}
	return out, nil
}

// fileColumns returns the columns every file of files has: the columns:
// option, or the header (column0… without one) the files share. A file
// whose committed bytes are none (a valid length of 0) has no header to
// compare.
func (s *csvSource) fileColumns(files []sources.ScanFile) ([]string, error) {
	if s.columns != nil {
		return s.columns, nil
	}
	var cols []string
	var from sources.ScanFile
	for _, f := range files {
		if f.Cut() && f.ValidLength.Length == 0 {
			continue
		}
		c, err := csvHeader(f, s.delim, s.quote, s.header, s.enc)
		if err != nil {
			return nil, err
		}
		if cols == nil {
			cols, from = c, f
		} else if strings.Join(c, "\x00") != strings.Join(cols, "\x00") {
			return nil, fmt.Errorf("%s: header %q differs from %s's %q; every file of one input must have the same columns", f.Name, c, from.Name, cols)
		}
	}
	if cols == nil && len(files) == 0 {
		return nil, errors.New("no file with a header: give columns:")
	}
	if cols == nil {
		return nil, fmt.Errorf("%s: no committed bytes in any file, so no header: give columns:", files[0].Name)
	}
	return cols, nil
}

// uncommittedColumns are the columns of an input whose every file is
// uncommitted (listed ErrOnlyUncommitted): it holds no committed record,
// and its columns are the columns: option, or the header every
// uncommitted file shares (each read as ReadUncommitted reads it; a file
// with no complete line has none to compare). Files whose headers differ,
// or no file with a header, are an error (wrapping only, the listing's).
func (s *csvSource) uncommittedColumns(skipped []sources.SkippedFile, only error) ([]string, error) {
	if s.columns != nil {
		return s.columns, nil
	}
	var files []sources.ScanFile
	for _, sk := range skipped {
		if !sk.Uncommitted {
			continue
		}
		f, err := s.ls.UncommittedFile(sk.Path, true)
		if err != nil {
			return nil, fmt.Errorf("%w; %s: %w", only, sk.Path, err)
		}
		files = append(files, f)
	}
	cols, err := s.fileColumns(files)
	if err != nil {
		return nil, fmt.Errorf("%w; the columns come from the uncommitted files' headers, which must agree: %w", only, err)
	}
	return cols, nil
}

// Scan describes the files for an engine's own CSV reader.
func (s *csvSource) Scan(ctx context.Context) (*sources.Input, *sources.Scan, error) {
	in, files, cols, err := s.prepare(ctx)
	if err != nil {
		return nil, nil, err
	}
	first := int64(1)
	if s.header {
		first = 2
	}
	enc := ""
	if s.enc != nil {
		enc = s.enc.name
	}
	return in, &sources.Scan{Format: sources.FormatCSV, Files: files, Columns: cols, Header: s.header,
		Delimiter: string(s.delim), Quote: string(s.quote), FirstLine: first, Partitions: in.Partitions, Encoding: enc}, nil
}

// Read parses the files with encoding/csv into text columns.
func (s *csvSource) Read(ctx context.Context) (*sources.Input, array.RecordReader, error) {
	if s.quote >= utf8.RuneSelf {
		return nil, nil, fmt.Errorf("%w: quote %q: only an ASCII quote character can be read outside the engine's CSV reader", sources.ErrInvalidLocation, string(s.quote))
	}
	in, files, cols, err := s.prepare(ctx)
	if err != nil {
		return nil, nil, err
	}
	rr, err := s.readFiles(ctx, files, cols, in.Partitions, s.loc.Progress)
	if err != nil {
		return nil, nil, err
	}
	return in, rr, nil
}

// ReadUncommitted reads one uncommitted file of the listing with its own
// header (or the columns: option), up to its last line break when it is
// not compressed.
func (s *csvSource) ReadUncommitted(ctx context.Context, name string) (array.RecordReader, error) {
	if s.quote >= utf8.RuneSelf {
		return nil, fmt.Errorf("%w: quote %q: only an ASCII quote character can be read outside the engine's CSV reader", sources.ErrInvalidLocation, string(s.quote))
	}
	f, err := s.ls.UncommittedFile(name, true)
	if err != nil {
		return nil, err
	}
	if f.Cut() && f.ValidLength.Length == 0 {
		return nil, fmt.Errorf("%s: no complete line", f.Name)
	}
	cols, err := s.fileColumns([]sources.ScanFile{f})
	if err != nil {
		return nil, err
	}
	if err := checkPartitionNames(cols, s.ls.PartitionNames()); err != nil {
		return nil, err
	}
	return s.readFiles(ctx, []sources.ScanFile{f}, cols, s.ls.PartitionNames(), nil)
}

// readFiles reads files of columns cols, then the partition columns.
func (s *csvSource) readFiles(ctx context.Context, files []sources.ScanFile, cols, parts []string, progress io.Writer) (array.RecordReader, error) {
	fields := make([]arrow.Field, 0, len(cols)+len(parts))
	for _, c := range append(append([]string{}, cols...), parts...) {
		fields = append(fields, arrow.Field{Name: c, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	return sources.ReadRows(ctx, fields, sources.ReadOptions{Progress: progress, Label: "reading " + s.loc.Role + " " + s.loc.URI}, func(ctx context.Context, w *sources.RowWriter) error {
		builders := make([]*array.StringBuilder, len(fields))
		for i := range fields {
			builders[i] = w.Column(i).(*array.StringBuilder)
		}
		for _, f := range files {
			if err := s.readFile(f, len(cols), builders, w); err != nil {
				return err
			}
		}
		return nil
	})
}

// readFile appends the records of one file: ncols columns, then the file's
// partition values.
func (s *csvSource) readFile(f sources.ScanFile, ncols int, builders []*array.StringBuilder, w *sources.RowWriter) error {
	rc, err := fileset.OpenScanFile(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	it := s.records(s.enc.decode(rc, f.Name), f, ncols)
	for {
		rec, line, err := it.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		size := 0
		for j := range ncols {
			v := ""
			if rec != nil {
				v = rec[j]
			}
			if v == "" {
				builders[j].AppendNull()
				continue
			}
			if s.swapped() {
				v = swapQuotes(v, s.quote)
			}
			if why := s.enc.checkText(v); why != "" {
				return fmt.Errorf("%s:%d: column %s: value %q %s", f.Name, line, w.Fields()[j].Name, v, why)
			}
			builders[j].Append(v)
			size += len(v)
		}
		for j, v := range f.Partition {
			if v == nil {
				builders[ncols+j].AppendNull()
				continue
			}
			builders[ncols+j].Append(*v)
			size += len(*v)
		}
		if err := w.EndRow(f.Name, line, size); err != nil {
			return err
		}
	}
}

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
	prevEnd int64    // the last line the previous record (or the header) spans
	held    []string // a record read past empty lines, yielded after them
	heldAt  int64
	eof     bool
	// what names the expected field count in messages.
	what string
}

func (s *csvSource) records(r io.Reader, f sources.ScanFile, ncols int) *csvRecords {
	lc := &lineCounter{r: r}
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
		if it.held != nil {
			if it.ncols == 1 && it.prevEnd+1 < it.heldAt {
				it.prevEnd++
				return nil, it.prevEnd, nil
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
				return nil, 0, fmt.Errorf("%s:%d: %d fields, %s %d", it.f.Name, pe.StartLine, len(rec), it.what, it.ncols)
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
			rec[0] = strings.TrimPrefix(rec[0], "\uFEFF")
			if it.header {
				it.prevEnd = int64(line) + spannedLines(rec)
				continue
			}
		}
		it.held, it.heldAt = rec, int64(line)
	}
}

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

// swapQuotes undoes swapReader in one value.
func swapQuotes(v string, quote rune) string {
	if !strings.ContainsAny(v, `"`+string(quote)) {
		return v
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case quote:
			return '"'
		case '"':
			return quote
		}
		return r
	}, v)
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
	br := bufio.NewReaderSize(enc.decode(rc, f.Name), headerPeek)
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
	if len(rec) > 0 {
		rec[0] = strings.TrimPrefix(rec[0], "\uFEFF")
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
