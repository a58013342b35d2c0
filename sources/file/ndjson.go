package file

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/reconcile-dev/reconcile/sources/internal/jsontext"
)

func init() {
	sources.Register("ndjson", openNDJSON, "jsonl")
	sources.RegisterFileKind("ndjson")
}

// ndjsonSource reads newline-delimited JSON: one object per line, blank
// lines (JSON white space only) skipped, a UTF-8 byte-order mark dropped;
// other white space around the object (\v, U+00A0, …) or anything but JSON
// white space after it is an error naming file and line (ndjsonText,
// ndjsonObject). Each top-level key becomes
// a text column (columns in order of first appearance across the files).
// Values keep their literal JSON text: a string is unquoted, a number stays
// exactly as written (DuckDB's read_json parses numbers as DOUBLE, which
// turns 12345678901234567.89 into 12345678901234568, so this kind decodes
// with encoding/json's UseNumber instead), true/false stay "true"/"false",
// null is NULL and a nested object or array is kept as its compact JSON
// text (jsontext.AppendText: no white space between tokens, strings with
// the fewest escapes, keys and numbers as written; the rule of the kafka
// and kcat kinds). A key given twice in one object, at any depth, or two
// top-level keys differing only in case, is an error naming file and
// line. Options: partitions (see fileset.Partitions), types,
// and dateformat, timestampformat, decimal_separator, thousands for values
// written as JSON strings (ValueFormats, applied by the loader). JSON text
// is UTF-8 (RFC 8259, section 8.1): there is no encoding option, and a
// byte that is not UTF-8, or a \uXXXX escape that is half of a UTF-16
// surrogate pair without its other half, is an error naming file, line and
// column (see ndjsonText). With bad_records: report, such a line is skipped
// and listed in Input.BadRecords instead (the first pass, over the keys,
// finds them). It implements UncommittedReader.
type ndjsonSource struct {
	loc        sources.Location
	partitions *fileset.Partitions
	declared   []sources.Column
	formats    sources.ValueFormats
	ls         *fileset.Listed
	// report is bad_records: report: a line that is not a JSON object of
	// Unicode text is skipped and listed instead of stopping the read.
	report bool
}

func openNDJSON(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions("ndjson", loc.Options)
	parts := fileset.ReadPartitions(o)
	types := o.Types()
	formats := o.ValueFormats()
	report := o.BadRecords()
	if err := o.Err(); err != nil {
		return nil, err
	}
	return &ndjsonSource{loc: loc, partitions: parts, declared: types, formats: formats, report: report}, nil
}

func (s *ndjsonSource) Close() error { return nil }

// Read lists and fingerprints the files, reads them once to learn their
// keys (the columns), and returns the records of a second pass.
func (s *ndjsonSource) Read(ctx context.Context) (*sources.Input, array.RecordReader, error) {
	in, files, ls, err := fileset.ListInput(ctx, s.loc, "ndjson", s.declared, s.partitions)
	if err != nil {
		return nil, nil, err
	}
	s.ls = ls
	in.Formats = s.formats
	in.ReportsBadRecords = s.report
	rr, bad, err := s.readFiles(ctx, files, in.Partitions, s.loc.Progress, s.report)
	if err != nil {
		return nil, nil, err
	}
	in.BadRecords = bad
	return in, rr, nil
}

// ReadUncommitted reads one uncommitted file of the listing, its columns
// the keys it holds, up to its last line break when it is not compressed.
func (s *ndjsonSource) ReadUncommitted(ctx context.Context, name string) (array.RecordReader, error) {
	f, err := s.ls.UncommittedFile(name, true)
	if err != nil {
		return nil, err
	}
	// An uncommitted file's records are only counted: one that cannot be
	// read stops the run whatever bad_records says.
	rr, _, err := s.readFiles(ctx, []sources.ScanFile{f}, s.ls.PartitionNames(), nil, false)
	return rr, err
}

// readFiles reads the keys of files (the columns), then their records with
// the partition columns. With report, a line that is not a JSON object of
// Unicode text is skipped, and listed in bad (in read order) by the first
// pass.
func (s *ndjsonSource) readFiles(ctx context.Context, files []sources.ScanFile, parts []string, progress io.Writer, report bool) (array.RecordReader, []sources.BadRecord, error) {
	keys, bad, err := ndjsonKeys(ctx, files, report)
	if err != nil {
		return nil, nil, err
	}
	if err := checkPartitionNames(keys, parts); err != nil {
		return nil, nil, err
	}
	index := make(map[string]int, len(keys))
	fields := make([]arrow.Field, 0, len(keys)+len(parts))
	for i, k := range keys {
		index[k] = i
		fields = append(fields, arrow.Field{Name: k, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	for _, p := range parts {
		fields = append(fields, arrow.Field{Name: p, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	skip := skipBadLine(report, nil)
	rr, err := sources.ReadRows(ctx, fields, sources.ReadOptions{Progress: progress, Label: "reading " + s.loc.Role + " " + s.loc.URI}, func(ctx context.Context, w *sources.RowWriter) error {
		builders := make([]*array.StringBuilder, len(fields))
		for i := range fields {
			builders[i] = w.Column(i).(*array.StringBuilder)
		}
		row := make([]*string, len(fields))
		for _, f := range files {
			err := fileset.Lines(ctx, f, ndjsonCheck(f.Name, skip), func(line []byte, n int64) error {
				ks, vals, err := ndjsonObject(line, f.Name, n)
				if err != nil {
					return skip(err)
				}
				clear(row)
				for i, k := range ks {
					row[index[k]] = vals[i]
				}
				copy(row[len(keys):], f.Partition)
				size := 0
				for i, v := range row {
					if v == nil {
						builders[i].AppendNull()
						continue
					}
					builders[i].Append(*v)
					size += len(*v)
				}
				return w.EndRow(f.Name, n, size)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	return rr, bad, err
}

// ndjsonCheck is the check of Lines that refuses a line of file name that
// is not Unicode text or has white space JSON does not allow around its
// value (ndjsonText), or skips it (fileset.SkipLine) when
// skip takes its error (bad_records: report).
func ndjsonCheck(name string, skip func(error) error) func(line []byte, n int64) error {
	return func(line []byte, n int64) error {
		err := ndjsonText(line, name, n)
		if err == nil {
			return nil
		}
		if err := skip(err); err != nil {
			return err
		}
		return fileset.SkipLine
	}
}

// skipBadLine is what the passes over NDJSON lines do with a line's error:
// without report, return it (the read stops); with report, a line's error
// (a *lineError) is listed in bad (when bad is not nil: the first pass) and
// the line skipped (nil). Any other error stops the read.
func skipBadLine(report bool, bad *badList) func(error) error {
	return func(err error) error {
		var le *lineError
		if !report || !errors.As(err, &le) {
			return err
		}
		if bad != nil {
			return bad.add(sources.BadRecord{Location: fmt.Sprintf("%s:%d", le.path, le.n), Reason: le.reason()}, err)
		}
		return nil
	}
}

// lineError is a line of an NDJSON file that is not a JSON object of
// Unicode text: file path, line n, and, for a byte or escape that is not
// text, its byte column col (1-based; 0 for none).
type lineError struct {
	path string
	n    int64
	col  int
	msg  string
	err  error // wrapped, when the JSON decoder gave one
}

func (e *lineError) Error() string {
	if e.col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.path, e.n, e.col, e.msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.path, e.n, e.msg)
}

func (e *lineError) Unwrap() error { return e.err }

// reason is e without its location, for a bad record.
func (e *lineError) reason() string {
	if e.col > 0 {
		return fmt.Sprintf("at byte %d of the line: %s", e.col, e.msg)
	}
	return e.msg
}

// ndjsonText refuses a line that is not Unicode text, naming file, line,
// byte column and what is wrong: a byte that is not UTF-8 (RFC 8259
// section 8.1), or a \uXXXX escape that is half of a UTF-16 surrogate pair
// without its other half (section 8.2), which names no character.
// encoding/json would turn either into U+FFFD, so two different values
// (A\xff and A\xfe, \ud800 and \udc00) would compare equal, and a Latin-1
// é would equal a CSV value holding U+FFFD. A whole pair is its character.
// It also refuses, naming the character, white space other than JSON's
// (space, tab, CR, LF; RFC 8259 section 2) at the start or end of the line
// (after a first line's byte-order mark): Lines trims every Unicode space
// (bytes.TrimSpace), so a line of \v alone would be skipped as blank and
// U+00A0{"id":"1"} read as the object.
func ndjsonText(line []byte, path string, n int64) error {
	if !utf8.Valid(line) {
		i := 0
		for i < len(line) {
			r, size := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return &lineError{path: path, n: n, col: i + 1, msg: fmt.Sprintf("byte 0x%02X is not UTF-8; NDJSON is UTF-8 text (RFC 8259 section 8.1): convert the file to UTF-8", line[i])}
	}
	if i := jsontext.LoneSurrogateAt(line); i >= 0 {
		return &lineError{path: path, n: n, col: i + 1, msg: fmt.Sprintf("the escape %s is half of a UTF-16 surrogate pair, which names no character (RFC 8259 section 8.2)", line[i:i+6])}
	}
	if i := otherSpaceAt(line, n); i >= 0 {
		r, _ := utf8.DecodeRune(line[i:])
		return &lineError{path: path, n: n, col: i + 1, msg: fmt.Sprintf("%U is white space JSON does not allow; only space, tab, CR and LF may stand around a value (RFC 8259 section 2)", r)}
	}
	return nil
}

// jsonSpace is the white space JSON allows around a value (RFC 8259
// section 2).
const jsonSpace = " \t\r\n"

// otherSpaceAt is the byte offset in line, the UTF-8 line n as read, of a
// Unicode white space character (unicode.IsSpace, what bytes.TrimSpace
// trims) that is not JSON's and stands at the start or the end of the line
// once JSON's white space and a first line's byte-order mark are set
// aside; -1 if there is none.
func otherSpaceAt(line []byte, n int64) int {
	start := 0
	if n == 1 && bytes.HasPrefix(line, utf8Mark) {
		start = len(utf8Mark)
	}
	i := len(line) - len(bytes.TrimLeft(line[start:], jsonSpace))
	if r, _ := utf8.DecodeRune(line[i:]); i < len(line) && unicode.IsSpace(r) {
		return i
	}
	end := len(bytes.TrimRight(line, jsonSpace))
	if r, size := utf8.DecodeLastRune(line[:end]); end > i && unicode.IsSpace(r) {
		return end - size
	}
	return -1
}

// ndjsonObject decodes one line into its keys and values, in order, with
// each value as NDJSON text (see openNDJSON). It fails for anything but an
// object, and for anything but JSON white space after it.
func ndjsonObject(line []byte, path string, n int64) (keys []string, vals []*string, err error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	bad := func(err error, format string, args ...any) error {
		if err != nil {
			args = append(args, err)
			format += ": %v"
		}
		return &lineError{path: path, n: n, msg: fmt.Sprintf(format, args...), err: err}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, bad(err, "not valid JSON")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, bad(nil, "expected a JSON object per line, found %v", tok)
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, bad(err, "not valid JSON")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, bad(err, "key %v: not valid JSON", kt)
		}
		k := kt.(string)
		if slices.Contains(keys, k) {
			return nil, nil, bad(nil, "key %q appears twice in one object; which value holds is not defined", k)
		}
		keys = append(keys, k)
		v, err := jsonText(raw)
		if err != nil {
			return nil, nil, bad(err, "key %q", k)
		}
		vals = append(vals, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, bad(err, "not valid JSON")
	}
	if dec.More() {
		return nil, nil, bad(nil, "more than one JSON value on the line")
	}
	// More is false before a closing bracket too ({"id":"1"}}): nothing but
	// JSON white space may follow the object.
	if rest := bytes.TrimLeft(line[dec.InputOffset():], jsonSpace); len(rest) > 0 {
		r, _ := utf8.DecodeRune(rest)
		return nil, nil, bad(nil, "%q after the object; expected the end of the line (one JSON object per line)", string(r))
	}
	return keys, vals, nil
}

// jsonText is a value's text as NDJSON reads it (see ndjsonSource): nil for
// null, a string unquoted, an object or array as the text jsontext.AppendText
// gives (one rule with the kafka and kcat kinds), anything else as written.
// It fails for an object or array that gives a key twice.
func jsonText(raw json.RawMessage) (*string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(raw, []byte("null")):
		return nil, nil
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			return &s, nil
		}
	case len(raw) > 0 && (raw[0] == '{' || raw[0] == '['):
		t, err := jsontext.AppendText(make([]byte, 0, len(raw)), raw)
		if err != nil {
			return nil, err
		}
		s := string(t)
		return &s, nil
	}
	s := string(raw)
	return &s, nil
}

// ndjsonKeys reads every object's keys: the columns, in order of first
// appearance. With report, a line that is not a JSON object of Unicode
// text is skipped and listed in bad, in read order.
func ndjsonKeys(ctx context.Context, files []sources.ScanFile, report bool) ([]string, []sources.BadRecord, error) {
	seen := map[string]string{} // lower case → key as first written
	var keys []string
	var bad badList
	skip := skipBadLine(report, &bad)
	for _, f := range files {
		p := f.Name
		err := fileset.Lines(ctx, f, ndjsonCheck(f.Name, skip), func(line []byte, n int64) error {
			ks, _, err := ndjsonObject(line, p, n)
			if err != nil {
				return skip(err)
			}
			for _, k := range ks {
				switch first, ok := seen[strings.ToLower(k)]; {
				case !ok:
					seen[strings.ToLower(k)] = k
					keys = append(keys, k)
				case first != k:
					return fmt.Errorf("%w: %s:%d: key %q differs only in case from %q; DuckDB, which runs the checks, does not tell them apart", sources.ErrInvalidLocation, p, n, k, first)
				}
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if len(keys) == 0 {
		return nil, nil, fmt.Errorf("%s: no JSON object found, so no columns", files[0].Name)
	}
	return keys, bad.list(), nil
}
