package sources

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
)

// ErrNoFiles is returned by Load when a path or glob matches no readable file.
var ErrNoFiles = fault.Runtime.New("sources: no files match")

// options reads the kind-specific options of a Location and reports any it
// was not asked for.
type options struct {
	kind string
	m    map[string]any
	used map[string]bool
	errs []error
}

func newOptions(kind string, m map[string]any) *options {
	return &options{kind: kind, m: m, used: map[string]bool{"kind": true}}
}

func (o *options) get(key string) (any, bool) {
	o.used[key] = true
	v, ok := o.m[key]
	return v, ok && v != nil
}

func (o *options) String(key, def string) string {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	s, isStr := v.(string)
	if !isStr {
		o.errs = append(o.errs, fmt.Errorf("option %s: want a string, got %v", key, v))
	}
	return s
}

func (o *options) Bool(key string, def bool) bool {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		o.errs = append(o.errs, fmt.Errorf("option %s: want true or false, got %v", key, v))
	}
	return b
}

// Types reads the `types:` option: a mapping of column name to DuckDB type.
func (o *options) Types() map[string]string {
	v, ok := o.get("types")
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		o.errs = append(o.errs, fmt.Errorf("option types: want a mapping of column: TYPE, got %v", v))
		return nil
	}
	out := map[string]string{}
	for col, t := range m {
		s, isStr := t.(string)
		if !isStr || !typeName.MatchString(s) {
			o.errs = append(o.errs, fmt.Errorf("option types: column %s: %v is not a type name such as VARCHAR, BIGINT or DECIMAL(18,2)", col, t))
			continue
		}
		out[col] = s
	}
	return out
}

var typeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ]*(\(\s*\d+\s*(,\s*\d+\s*)?\))?$`)

// Err reports options that are malformed or not known to the kind.
func (o *options) Err() error {
	var unknown, known []string
	for k := range o.m {
		if !o.used[k] {
			unknown = append(unknown, k)
		}
	}
	for k := range o.used {
		known = append(known, k)
	}
	sort.Strings(unknown)
	sort.Strings(known)
	errs := o.errs
	if len(unknown) > 0 {
		errs = append(errs, fmt.Errorf("unknown option(s) %s for kind %s (it takes: uri, %s)", strings.Join(unknown, ", "), o.kind, strings.Join(known, ", ")))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidLocation, errors.Join(errs...))
}

// ExpandFiles resolves a path or glob against baseDir and returns the files
// to read, sorted, and the ones skipped because their name, or a folder the
// glob matched on the way, starts with "." or "_" (a glob such as dir/*/*
// would otherwise pick up a stream sink's in-progress ".part-…" files and a
// batch job's _temporary/ folder). A named file is read even if its
// name starts with one of those. It returns ErrNoFiles when nothing is left.
func ExpandFiles(pattern, baseDir string) (files, ignored []string, err error) {
	p := pattern
	if !filepath.IsAbs(p) && baseDir != "" {
		p = filepath.Join(baseDir, p)
	}
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return []string{p}, nil, nil // an existing file, even one named "data [1].csv"
	}
	if !strings.ContainsAny(pattern, "*?[") {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, fmt.Errorf("%w %s: %w", ErrNoFiles, pattern, err)
		}
		if st.IsDir() {
			return nil, nil, fmt.Errorf("%w %s: it is a folder; give a file or a glob such as %s", ErrNoFiles, pattern, filepath.Join(pattern, "*.csv"))
		}
		return []string{p}, nil, nil
	}
	matches, err := filepath.Glob(p)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: glob %s: %w", ErrInvalidLocation, pattern, err)
	}
	sort.Strings(matches)
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil || st.IsDir() {
			continue
		}
		if hiddenBelow(globRoot(p), m) {
			ignored = append(ignored, m)
			continue
		}
		files = append(files, m)
	}
	if len(files) == 0 {
		return nil, ignored, fmt.Errorf("%w %s (matched %d file(s), %d skipped as hidden or temporary)", ErrNoFiles, pattern, len(matches), len(ignored))
	}
	return files, ignored, nil
}

// globRoot is the folder of a glob pattern above its first wildcard.
func globRoot(pattern string) string {
	i := strings.IndexAny(pattern, "*?[")
	return filepath.Dir(pattern[:i] + "x")
}

// hiddenBelow reports whether any part of path below root — a folder the
// glob matched or the file itself — starts with "." or "_": a stream or
// batch job's staging area (.tmp/, _temporary/, .part-…, _SUCCESS).
func hiddenBelow(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." || strings.HasPrefix(part, "_") {
			return true
		}
	}
	return false
}

// Fingerprint returns the size and SHA-256 of each file, honouring ctx
// between files.
func Fingerprint(ctx context.Context, paths []string) ([]File, error) {
	out := make([]File, 0, len(paths))
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		out = append(out, File{Path: p, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return out, nil
}

// BadValue locates the first row of table (in read order) where cond holds
// and returns "file:line: column C: value "v"" context for an error message.
// cond is a DuckDB boolean expression over the table's columns. ok is false
// when no row matches.
func BadValue(ctx context.Context, db *duck.DB, table, column, cond string) (msg string, ok bool, err error) {
	q := fmt.Sprintf("SELECT %s, %s, %s FROM %s WHERE %s ORDER BY %s LIMIT 1",
		duck.Ident(FileColumn), duck.Ident(LineColumn), duck.Ident(column), duck.Ident(table), cond, duck.Ident(RowColumn))
	_, rows, err := db.Strings(ctx, q)
	if err != nil || len(rows) == 0 {
		return "", false, err
	}
	r := rows[0]
	val := "NULL"
	if r[2] != nil {
		val = strconv.Quote(*r[2])
	}
	return fmt.Sprintf("%s:%s: column %s: value %s", deref(r[0]), deref(r[1]), column, val), true, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

var decimalType = regexp.MustCompile(`(?i)^\s*(DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)\s*$`)

// castDeclared applies the `types:` option to a loaded table: each named
// column is checked with TRY_CAST and then converted. A value that does not
// convert (or that a declared DECIMAL would round) is an error naming file,
// line, column and value. A column named in types but absent is an error.
func castDeclared(ctx context.Context, db *duck.DB, table string, types map[string]string) error {
	if len(types) == 0 {
		return nil
	}
	cols, err := db.Columns(ctx, table)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, c := range cols {
		have[c.Name] = true
	}
	names := make([]string, 0, len(types))
	for c := range types {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, col := range names {
		typ := types[col]
		if !have[col] {
			return fmt.Errorf("%w: option types names column %s, which the input does not have", ErrInvalidLocation, col)
		}
		c := duck.Ident(col)
		cond := fmt.Sprintf("%s IS NOT NULL AND TRY_CAST(%s AS %s) IS NULL", c, c, typ)
		if m := decimalType.FindStringSubmatch(typ); m != nil {
			scale := m[3]
			if scale == "" {
				scale = "0"
			}
			cond = fmt.Sprintf("%s OR (%s IS NOT NULL AND length(regexp_extract(trim(%s::VARCHAR), '\\.(\\d*)$', 1)) > %s)", cond, c, c, scale)
		}
		msg, bad, err := BadValue(ctx, db, table, col, cond)
		if err != nil {
			return fmt.Errorf("check declared type %s of %s: %w", typ, col, err)
		}
		if bad {
			return fmt.Errorf("%s does not convert to the declared type %s", msg, typ)
		}
		if err := db.Exec(ctx, fmt.Sprintf("ALTER TABLE %s ALTER COLUMN %s SET DATA TYPE %s USING CAST(%s AS %s)", duck.Ident(table), c, typ, c, typ)); err != nil {
			return err
		}
	}
	return nil
}

// finishFileTable turns raw, a table read by a DuckDB file reader with a
// __file column and rows in read order, into table with the provenance
// columns of the package doc. firstLine is the line (or row) number of each
// file's first record.
func finishFileTable(ctx context.Context, db *duck.DB, raw, table string, firstLine int, baseDir string) error {
	f := duck.Ident(FileColumn)
	file := f
	if baseDir != "" {
		file = fmt.Sprintf("CASE WHEN starts_with(%s, %s) THEN substr(%s, %d) ELSE %s END AS %s",
			f, duck.Literal(baseDir+string(filepath.Separator)), f, len(baseDir)+2, f, f)
	}
	q := fmt.Sprintf(`CREATE TABLE %s AS SELECT * EXCLUDE (%s), %s,
  rowid - min(rowid) OVER (PARTITION BY %s) + %d AS %s,
  rowid AS %s
FROM %s`, duck.Ident(table), f, file, f, firstLine, duck.Ident(LineColumn), duck.Ident(RowColumn), duck.Ident(raw))
	err := db.Exec(ctx, q)
	db.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+duck.Ident(raw))
	return err
}

// UserColumns returns the columns of a loaded table in order, without the
// provenance columns (__file, __line, __row).
func UserColumns(ctx context.Context, db *duck.DB, table string) ([]duck.Column, error) {
	cols, err := db.Columns(ctx, table)
	if err != nil {
		return nil, err
	}
	out := cols[:0]
	for _, c := range cols {
		switch c.Name {
		case FileColumn, LineColumn, RowColumn:
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

// fileSource is the shared shape of the kinds read from files.
type fileSource struct {
	kind    string
	loc     Location
	types   map[string]string
	readSQL func(files []string) (string, error) // a DuckDB table expression with a __file column
	first   int                                  // line number of a file's first record
	// after, when set, runs once the table exists (before declared types).
	after func(ctx context.Context, db *duck.DB, table string, files []string) error
	// load, when set, replaces readSQL with a custom loader that creates
	// table itself (with provenance columns).
	load func(ctx context.Context, db *duck.DB, table string, files []string) error
}

func (s *fileSource) Close() error { return nil }

// baseDir is the absolute folder file paths are shown relative to in the
// evidence (so evidence does not depend on where it was produced).
func (s *fileSource) baseDir() string { return absDir(s.loc.BaseDir) }

func absDir(dir string) string {
	d, err := filepath.Abs(dir)
	if err != nil || dir == "" {
		return ""
	}
	return d
}

// Rel shows path relative to base when it lies below it.
func Rel(base, path string) string {
	if base == "" {
		return path
	}
	if r, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

func (s *fileSource) Load(ctx context.Context, db *duck.DB, table string) (*Input, error) {
	files, ignored, err := ExpandFiles(s.loc.URI, s.loc.BaseDir)
	if err != nil {
		return nil, err
	}
	fps, err := Fingerprint(ctx, files)
	if err != nil {
		return nil, err
	}
	base := s.baseDir()
	for i := range fps {
		fps[i].Path = Rel(base, fps[i].Path)
	}
	for i := range ignored {
		ignored[i] = Rel(base, ignored[i])
	}
	if s.load != nil {
		err = s.load(ctx, db, table, files)
	} else {
		raw := table + "__raw"
		var from string
		if from, err = s.readSQL(files); err == nil {
			if err = db.Exec(ctx, fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM %s", duck.Ident(raw), from)); err != nil {
				err = fmt.Errorf("read %s: %w", s.loc.URI, shortReaderError(err))
			} else {
				err = finishFileTable(ctx, db, raw, table, s.first, s.baseDir())
			}
		}
		if err == nil && s.after != nil {
			err = s.after(ctx, db, table, files)
		}
	}
	if err == nil {
		err = castDeclared(ctx, db, table, s.types)
	}
	if err != nil {
		db.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+duck.Ident(table))
		return nil, err
	}
	rows, err := db.Count(ctx, "SELECT count(*) FROM "+duck.Ident(table))
	if err != nil {
		return nil, err
	}
	cols, err := UserColumns(ctx, db, table)
	if err != nil {
		return nil, err
	}
	return &Input{Role: s.loc.Role, Kind: s.kind, Location: s.loc.URI, Files: fps, Ignored: ignored, Rows: rows, Columns: cols}, nil
}

func init() {
	Register("csv", openCSV, "tsv", "txt")
	Register("parquet", openParquet, "pq")
}

// openCSV reads CSV files with DuckDB's read_csv. Nothing is sniffed: the
// header is read here (a UTF-8 byte-order mark is dropped; every file must
// have the same header), every column is VARCHAR, and a row with too many or
// too few fields is an error naming file and line. Options: delimiter
// (default ","; tab for .tsv), quote (default '"'), header (default true;
// without one, columns are named column0, column1, …), types.
func openCSV(loc Location) (Source, error) {
	o := newOptions("csv", loc.Options)
	def := ","
	if strings.HasSuffix(strings.ToLower(strings.TrimSuffix(loc.URI, ".gz")), ".tsv") {
		def = "\t"
	}
	delim := o.String("delimiter", def)
	quote := o.String("quote", `"`)
	header := o.Bool("header", true)
	types := o.Types()
	if err := o.Err(); err != nil {
		return nil, err
	}
	if len([]rune(delim)) != 1 || len([]rune(quote)) != 1 {
		return nil, fmt.Errorf("%w: delimiter and quote must be one character each", ErrInvalidLocation)
	}
	first := 2
	if !header {
		first = 1
	}
	base := absDir(loc.BaseDir)
	return &fileSource{kind: "csv", loc: loc, types: types, first: first, after: func(ctx context.Context, db *duck.DB, table string, files []string) error {
		return csvPhysicalLines(ctx, db, table, files, base, []rune(delim)[0], []rune(quote)[0], header)
	}, readSQL: func(files []string) (string, error) {
		var cols []string
		for i, f := range files {
			c, err := csvHeader(f, []rune(delim)[0], header)
			if err != nil {
				return "", err
			}
			if i == 0 {
				cols = c
			} else if strings.Join(c, "\x00") != strings.Join(cols, "\x00") {
				return "", fmt.Errorf("%s: header %q differs from %s's %q; every file of one input must have the same columns", f, c, files[0], cols)
			}
		}
		spec := make([]string, len(cols))
		for i, c := range cols {
			spec[i] = duck.Literal(c) + ": 'VARCHAR'"
		}
		args := []string{duck.List(files), "auto_detect = false", fmt.Sprintf("header = %t", header),
			"delim = " + duck.Literal(delim), "quote = " + duck.Literal(quote), "escape = " + duck.Literal(quote),
			"columns = {" + strings.Join(spec, ", ") + "}", "filename = '" + FileColumn + "'"}
		return "read_csv(" + strings.Join(args, ", ") + ")", nil
	}}, nil
}

// csvHeader returns the column names of a CSV file: its first record, or
// column0… when the file has no header. Names must be non-empty and unique.
func csvHeader(path string, delim rune, header bool) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	cr := csv.NewReader(r)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	rec, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: the file is empty (not even a header line)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	if len(rec) > 0 {
		rec[0] = strings.TrimPrefix(rec[0], "\uFEFF")
	}
	if !header {
		for i := range rec {
			rec[i] = fmt.Sprintf("column%d", i)
		}
		return rec, nil
	}
	seen := map[string]string{}
	for i, c := range rec {
		switch {
		case c == "":
			return nil, fmt.Errorf("%s:1: header column %d has no name", path, i+1)
		case seen[strings.ToLower(c)] == c:
			return nil, fmt.Errorf("%s:1: header names column %q twice", path, c)
		case seen[strings.ToLower(c)] != "":
			return nil, fmt.Errorf("%s:1: header columns %q and %q differ only in case; DuckDB, which runs the checks, does not tell them apart", path, seen[strings.ToLower(c)], c)
		case c == FileColumn || c == LineColumn || c == RowColumn:
			return nil, fmt.Errorf("%s:1: column name %q is reserved for provenance", path, c)
		}
		seen[strings.ToLower(c)] = c
	}
	return rec, nil
}

// shortReaderError turns a DuckDB reader error into one line: the file,
// the line and what was found, without the statement text and the list of
// reader settings DuckDB appends.
func shortReaderError(err error) error {
	inner := err
	if u := errors.Unwrap(err); u != nil {
		inner = u
	}
	var keep []string
	file := ""
	for _, l := range strings.Split(inner.Error(), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "file = "):
			file = strings.TrimPrefix(l, "file = ")
		case l == "" || strings.HasPrefix(l, "Possible fixes") || strings.HasPrefix(l, "Possible Solution") ||
			strings.HasPrefix(l, "* ") || strings.Contains(l, " = "):
			// DuckDB's advice names read_csv options, not reconcile's.
		default:
			keep = append(keep, l)
		}
	}
	msg := strings.Join(keep, "; ")
	if strings.Contains(msg, "not utf-8 encoded") {
		msg += "; reconcile reads UTF-8 only: convert the file first (iconv -f LATIN1 -t UTF-8)"
	}
	if file != "" {
		msg = file + ": " + msg
	}
	return &readerError{msg: msg, err: err}
}

// readerError is a DuckDB reader error shown by its first lines; the full
// error stays reachable through Unwrap.
type readerError struct {
	msg string
	err error
}

func (e *readerError) Error() string { return e.msg }
func (e *readerError) Unwrap() error { return e.err }

// openParquet reads Parquet files with DuckDB's read_parquet; columns keep
// the types the files declare. Option: types.
func openParquet(loc Location) (Source, error) {
	o := newOptions("parquet", loc.Options)
	types := o.Types()
	if err := o.Err(); err != nil {
		return nil, err
	}
	return &fileSource{kind: "parquet", loc: loc, types: types, first: 1, readSQL: func(files []string) (string, error) {
		return "read_parquet(" + duck.List(files) + ", filename = '" + FileColumn + "')", nil
	}}, nil
}
