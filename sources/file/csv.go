package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

func init() {
	sources.Register("csv", openCSV, "tsv", "txt")
	sources.RegisterFileKind("csv")
}

// csvSource reads delimited text files. Nothing is sniffed: the header is
// read here (a UTF-8 byte-order mark that is the file's first three bytes
// is dropped before parsing, see dropMark; every file must have the same
// header), every column is text, an empty field (quoted or not) is
// NULL, and a record with too many or too few fields is an error naming file
// and line. __line is the physical line a record starts on, after blank
// lines and quoted fields that span lines too.
//
// Options: delimiter (default ","; a tab for .tsv, and for a folder of
// .tsv files given without a kind: Location.Extension), quote (default '"'; a
// quote inside a quoted field is doubled, RFC 4180), header (default true;
// without one, columns are named column0, column1, …), columns (the names
// of a header-less file's columns, in order: header then defaults to false,
// and every record must have that many fields), partitions (see
// fileset.Partitions), types, encoding (utf-8 by default; latin-1,
// windows-1252, utf-16, utf-16le, utf-16be are decoded to UTF-8 as the files
// are read, after decompression and the valid-length cut, by Read only),
// and dateformat, timestampformat, decimal_separator, thousands
// (ValueFormats, applied by the loader), and bad_records (fail or report:
// a record of another number of fields, or a value that is not UTF-8, is
// skipped by Read and listed, BadRecords). Under UTF-8 a value that is not
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
	// report is bad_records: report: a record of another number of fields,
	// or a value that is not text of the encoding, is skipped by Read and
	// listed in bad (BadRecords) instead of stopping the read.
	report bool
	bad    badList
}

func openCSV(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions("csv", loc.Options)
	def := ","
	if name := strings.ToLower(loc.URI); strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst"), ".tsv") || loc.Extension == "tsv" {
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
	report := o.BadRecords()
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
	return &csvSource{loc: loc, delim: d, quote: q, header: header, columns: columns, partitions: parts, declared: types, enc: enc, formats: formats, report: report}, nil
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
	in.ReportsBadRecords = s.report
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
	s.bad.reset()
	rr, err := s.readFiles(ctx, files, cols, in.Partitions, s.loc.Progress, s.report)
	if err != nil {
		return nil, nil, err
	}
	return in, rr, nil
}

// BadRecords are the records the last Read skipped (bad_records: report),
// once its records are read.
func (s *csvSource) BadRecords() []sources.BadRecord { return s.bad.list() }

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
	// An uncommitted file's records are only counted: one that cannot be
	// read stops the run whatever bad_records says.
	return s.readFiles(ctx, []sources.ScanFile{f}, cols, s.ls.PartitionNames(), nil, false)
}

// readFiles reads files of columns cols, then the partition columns; with
// report, a record that cannot be read is skipped and listed in s.bad.
func (s *csvSource) readFiles(ctx context.Context, files []sources.ScanFile, cols, parts []string, progress io.Writer, report bool) (array.RecordReader, error) {
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
			if err := s.readFile(f, len(cols), builders, w, report); err != nil {
				return err
			}
		}
		return nil
	})
}

// readFile appends the records of one file: ncols columns, then the file's
// partition values. With report, a record of another number of fields, or
// with a value that is not text of the encoding, is skipped and listed in
// s.bad (a quote out of place still stops the read: where the records
// after it begin is then not known).
func (s *csvSource) readFile(f sources.ScanFile, ncols int, builders []*array.StringBuilder, w *sources.RowWriter, report bool) error {
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
		var bad *badRecordError
		if report && errors.As(err, &bad) {
			if err := s.bad.add(bad.record, err); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if report {
			// A value that is not text of the encoding skips its record
			// before any of its values is appended.
			if j, why := s.badText(rec, ncols); why != "" {
				v := rec[j]
				if s.swapped() {
					v = swapQuotes(v, s.quote)
				}
				name := w.Fields()[j].Name
				err := fmt.Errorf("%s:%d: column %s: value %q %s", f.Name, line, name, v, why)
				if err := s.bad.add(sources.BadRecord{Location: fmt.Sprintf("%s:%d", f.Name, line), Column: name, Value: &v, Reason: why}, err); err != nil {
					return err
				}
				continue
			}
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

// badText returns the first of the ncols values of rec (nil: an empty
// line) that is not text of the input's encoding, and why.
func (s *csvSource) badText(rec []string, ncols int) (int, string) {
	for j := range min(ncols, len(rec)) {
		v := rec[j]
		if v == "" {
			continue
		}
		if s.swapped() {
			v = swapQuotes(v, s.quote)
		}
		if why := s.enc.checkText(v); why != "" {
			return j, why
		}
	}
	return 0, ""
}
