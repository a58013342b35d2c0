package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// native reports whether DuckDB reads scan with its own reader: CSV or
// Parquet, each file plain, gzip or zstd (DuckDB reads both natively;
// compression = 'auto' would go by a lower-case extension only, so the
// loader names each file's compression itself), and none cut by a
// valid-length side file (DuckDB's readers read whole files: such a scan is
// read through the source's Read, which reads only the committed bytes), and
// the text UTF-8 (a declared encoding: is decoded by Read), and no path
// holding a glob character (globChars).
func native(scan *sources.Scan) bool {
	if scan.Encoding != "" {
		return false
	}
	switch scan.Format {
	case sources.FormatCSV, sources.FormatParquet:
	default:
		return false
	}
	for _, f := range scan.Files {
		if _, ok := duckCompression[f.Compression]; !ok || f.Cut() || strings.ContainsAny(f.Path, globChars) {
			return false
		}
	}
	return true
}

// globChars are the characters DuckDB's file readers take as a glob in a
// path they are given (*, **, ?, [abc]; { for safety): a file whose own
// name holds one (src*.parquet, a[1].csv) would be read together with every
// file the pattern also matches (src_old.parquet, a1.csv), so such a scan
// is read through the source's Read, which opens the file by its name.
const globChars = "*?[{"

// partitionList is one partition column for the file_provenance statement:
// its name and a list literal of every file's value (NULL for the default
// partition), in the order of the scan's files.
type partitionList struct {
	Name, Values string
}

func partitionLists(scan *sources.Scan) []partitionList {
	out := make([]partitionList, len(scan.Partitions))
	for i, name := range scan.Partitions {
		vals := make([]string, len(scan.Files))
		for j, f := range scan.Files {
			if v := f.Partition[i]; v != nil {
				vals[j] = duck.Literal(*v)
			} else {
				vals[j] = "NULL"
			}
		}
		out[i] = partitionList{Name: name, Values: "[" + strings.Join(vals, ", ") + "]"}
	}
	return out
}

// duckCompression is read_csv's name for each compression it reads.
var duckCompression = map[sources.Compression]string{
	sources.NoCompression: "none",
	sources.Gzip:          "gzip",
	sources.Zstd:          "zstd",
}

// loadScan reads scan with DuckDB's file reader into table, with the
// provenance columns of package sources. location names the input in
// errors. With view, a Parquet scan of one schema read in one pass makes
// table a view over the files instead (inPlace reports it did). rewrite
// says the caller will rewrite table (Options.Rename, formats, declared
// types: rewrites), which a view over a raw table would have to be copied
// for.
func loadScan(ctx context.Context, db *duck.DB, table, location string, scan *sources.Scan, view, rewrite bool) (inPlace bool, err error) {
	if parquetOnePass(scan, view, rewrite) {
		view = view && len(schemaRuns(scan)) == 1
		done, err := loadParquet(ctx, db, table, scan, view)
		if err != nil {
			var re *runError
			if errors.As(err, &re) {
				return false, fmt.Errorf("read %s: %s: %w", location, re.files, shortReaderError(re.err))
			}
			return false, fmt.Errorf("read %s: %w", location, shortReaderError(err))
		}
		if done {
			return view, nil
		}
	}
	return false, loadTwoPass(ctx, db, table, location, scan)
}

// parquetOnePass reports whether scan is read by loadParquet, in one pass
// with its provenance columns: a Parquet scan without a column named
// file_row_number, read in place (view), or to be rewritten (a rename,
// format or declared type: loadTable copies a view over a raw table into a
// table first, and the raw rows and the copy would be held at once), or
// not of one file without partitions (overRaw).
func parquetOnePass(scan *sources.Scan, view, rewrite bool) bool {
	return scan.Format == sources.FormatParquet && onePass(scan) && (view || rewrite || !overRaw(scan))
}

// loadTwoPass reads scan into table the plain way: the raw rows first
// (readRaw), then their provenance (file_provenance.sql) in a second copy,
// or, for an input of one file without partitions (overRaw), in a view
// over the kept raw table (duck.DB.ViewOver).
func loadTwoPass(ctx context.Context, db *duck.DB, table, location string, scan *sources.Scan) error {
	raw := table + "__raw"
	over := overRaw(scan)
	viewMade := false
	defer func() {
		if !viewMade {
			drop(ctx, db, raw)
		}
	}()
	if err := readRaw(ctx, db, raw, scan); err != nil {
		var re *runError
		if errors.As(err, &re) {
			return fmt.Errorf("read %s: %s: %w", location, re.files, shortReaderError(re.err))
		}
		return fmt.Errorf("read %s: %w", location, shortReaderError(err))
	}
	paths := make([]string, len(scan.Files))
	names := make([]string, len(scan.Files))
	for i, f := range scan.Files {
		paths[i], names[i] = f.Path, f.Name
	}
	enum, err := fileEnum(ctx, db, table, scan)
	if err != nil {
		return err
	}
	for {
		q, err := statements().SQL(queries.LoadFileProvenance, struct {
			Table, Raw, Enum string
			Paths, Names     []string
			FirstLine        int64
			Partitions       []partitionList
			RawFile, View    bool
		}{table, raw, enum, paths, names, scan.FirstLine, partitionLists(scan), rawFile(scan), over})
		if err != nil {
			return err
		}
		if over {
			// Every row's provenance is the one file's name and its
			// position: nothing can be left without it (complete).
			if err := db.ViewOver(ctx, table, raw, q); err != nil {
				return err
			}
			viewMade = true // dropped with the view from now on
			break
		}
		if err := db.Exec(ctx, q); err != nil {
			return err
		}
		if enum == "" {
			break
		}
		ok, err := complete(ctx, db, table, enum)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		enum = "" // a file DuckDB named otherwise: __file as text
	}
	if scan.Format == sources.FormatCSV {
		return physicalLines(ctx, db, table, scan)
	}
	return nil
}

// overRaw reports whether an input read into a table (not a view over its
// files) keeps its raw table, with the input's table a view adding the
// provenance columns to it (file_provenance.sql), not a second copy: a CSV
// or Parquet input of one file without partition columns. (A partition
// column would be a constant of the view's, which a conversion in place of
// the raw table could not reach.) Its __file is a constant and __line and
// __row come from DuckDB's rowid, the row's position in the table as read
// in file order (preserve_insertion_order): nothing stored for them. For
// Parquet the three stored columns were 17 bytes a row: with two 10 M-row
// inputs under a 4 GB budget (DuckDB 1.9 GiB), 340 MB of the tables no
// longer spilled to disk, and value_mismatches, which read them back, took
// 1.9 s instead of 2.9 s.
func overRaw(scan *sources.Scan) bool {
	return (scan.Format == sources.FormatCSV || scan.Format == sources.FormatParquet) &&
		len(scan.Files) == 1 && len(partitionLists(scan)) == 0
}

// readRaw creates raw from the files, in read order, with a __file column
// holding each row's path (rawFile: not for an input of one file). CSV files are
// read in runs of one compression (read_csv takes one for all its files),
// each run appended in turn.
func readRaw(ctx context.Context, db *duck.DB, raw string, scan *sources.Scan) error {
	if scan.Format == sources.FormatParquet {
		return readParquetRuns(ctx, db, raw, scan)
	}
	for start := 0; start < len(scan.Files); {
		c := scan.Files[start].Compression
		end := start
		var paths []string
		for end < len(scan.Files) && scan.Files[end].Compression == c {
			paths = append(paths, scan.Files[end].Path)
			end++
		}
		err := db.ExecFile(ctx, statements(), queries.LoadReadCSV, struct {
			Table                         string
			Append                        bool
			Files, Columns                []string
			Header, Filename              bool
			Delimiter, Quote, Compression string
		}{raw, start > 0, paths, scan.Columns, scan.Header, rawFile(scan), scan.Delimiter, scan.Quote, duckCompression[c]})
		if err != nil {
			return err
		}
		start = end
	}
	return nil
}

// rawFile reports whether readRaw gives raw a __file column: only when
// there is more than one file (every row of a one-file input is of that
// file).
func rawFile(scan *sources.Scan) bool {
	return len(scan.Files) > 1
}

// readParquetRuns reads the Parquet files of scan in runs of consecutive
// files of one schema (ScanFile.Columns), each run with one read_parquet
// whose columns are cast to the input's unified types (Scan.Types): DuckDB's
// read_parquet over files of different schemas casts every file to the
// first file's types (rounding a DECIMAL(20,4) into a DECIMAL(18,2), turning
// a text "007" into 7), so it is never given two schemas at once.
func readParquetRuns(ctx context.Context, db *duck.DB, raw string, scan *sources.Scan) error {
	for i, r := range schemaRuns(scan) {
		err := db.ExecFile(ctx, statements(), queries.LoadReadParquet, struct {
			Table            string
			Append, Filename bool
			Columns          []parquetColumn
			Files            []string
		}{raw, i > 0, rawFile(scan), r.columns, r.paths})
		if err != nil {
			return &runError{files: strings.Join(r.names, ", "), err: err}
		}
	}
	return nil
}

// parquetColumn is one column of a run of Parquet files as read_parquet
// reads it: its unified type, and whether the run's own type must be cast
// to it.
type parquetColumn struct {
	Name, Type string
	Cast       bool
}

// schemaRun is a run of consecutive files of a scan with one schema: their
// paths, their names for messages, and each column of the scan's unified
// types with whether this run's own type differs from it.
type schemaRun struct {
	paths, names []string
	columns      []parquetColumn
}

// schemaRuns splits scan.Files, in order, into runs of one schema
// (columnsKey), so that read_parquet is never given two schemas at once.
func schemaRuns(scan *sources.Scan) []schemaRun {
	var runs []schemaRun
	for start := 0; start < len(scan.Files); {
		key := columnsKey(scan.Files[start].Columns)
		var r schemaRun
		end := start
		for end < len(scan.Files) && columnsKey(scan.Files[end].Columns) == key {
			r.paths = append(r.paths, scan.Files[end].Path)
			r.names = append(r.names, scan.Files[end].Name)
			end++
		}
		own := map[string]string{}
		for _, c := range scan.Files[start].Columns {
			own[c.Name] = c.Type
		}
		r.columns = make([]parquetColumn, len(scan.Types))
		for i, t := range scan.Types {
			r.columns[i] = parquetColumn{Name: t.Name, Type: t.Type, Cast: t.Type != "" && own[t.Name] != t.Type}
		}
		runs = append(runs, r)
		start = end
	}
	return runs
}

// onePass reports whether a Parquet scan can be read in one pass
// (loadParquet): no file has a column named file_row_number, the name of
// read_parquet's row-position column.
func onePass(scan *sources.Scan) bool {
	for _, f := range scan.Files {
		for _, c := range f.Columns {
			if strings.EqualFold(c.Name, "file_row_number") {
				return false
			}
		}
	}
	return true
}

// loadParquet reads the Parquet files of scan into table in one pass
// (queries/load/read_parquet_table.sql): the runs of files of one schema
// as readParquetRuns reads them, with the provenance columns computed as
// the rows are read instead of in a second copy of the table (the
// file_provenance statement) — the same values: __line the row's position
// in its file from scan.FirstLine, __row its position in read order, from
// the row counts of the files' footers. With view (one run of files), table
// is a view reading the files with the same columns instead (load.Options.View).
// It returns false, with no table left, when a file's rows could not be
// matched to its listed path (the caller then reads the scan the two-pass way).
func loadParquet(ctx context.Context, db *duck.DB, table string, scan *sources.Scan, view bool) (bool, error) {
	paths := make([]string, len(scan.Files))
	for i, f := range scan.Files {
		paths[i] = f.Path
	}
	_, rows, err := db.StringsFile(ctx, statements(), queries.LoadParquetRows, struct{ Files []string }{paths})
	if err != nil {
		return false, err
	}
	counts := map[string]int64{}
	for _, r := range rows {
		if r[0] == nil || r[1] == nil {
			return false, nil
		}
		n, err := strconv.ParseInt(*r[1], 10, 64)
		if err != nil {
			return false, fmt.Errorf("parquet footer row count %q: %w", *r[1], err)
		}
		counts[*r[0]] = n
	}
	offsets := make([]string, len(scan.Files))
	var total int64
	for i, f := range scan.Files {
		n, ok := counts[f.Path]
		if !ok {
			return false, nil
		}
		offsets[i] = strconv.FormatInt(total, 10)
		total += n
	}
	enum, err := fileEnum(ctx, db, table, scan)
	if err != nil {
		return false, err
	}
	for i, r := range schemaRuns(scan) {
		err := db.ExecFile(ctx, statements(), queries.LoadReadParquetTable, struct {
			Table, Enum         string
			Append, View        bool
			Columns             []parquetColumn
			Files, Paths, Names []string
			Offsets             string
			FirstLine           int64
			Partitions          []partitionList
		}{table, enum, i > 0, view, r.columns, r.paths, paths, namesOf(scan), "[" + strings.Join(offsets, ", ") + "]", scan.FirstLine, partitionLists(scan)})
		if err != nil {
			return false, &runError{files: strings.Join(r.names, ", "), err: err}
		}
	}
	return complete(ctx, db, table, enum)
}

// complete reports whether every row of a table made in one pass, or with
// its __file as the ENUM type enum, has its provenance (missing_row.sql);
// when not, the table and the type are dropped, for the caller to make the
// table again the plain way.
func complete(ctx context.Context, db *duck.DB, table, enum string) (bool, error) {
	missing, err := db.CountFile(ctx, statements(), queries.LoadMissingRow, tableData{table})
	if err != nil {
		return false, err
	}
	if missing == 0 {
		return true, nil
	}
	drop(ctx, db, table)
	if enum != "" {
		if err := db.ExecFile(ctx, statements(), queries.LoadDropFileEnum, struct{ Name string }{enum}); err != nil {
			return false, err
		}
	}
	return false, nil
}

// fileEnum creates the ENUM type of table's __file column from the scan's
// file names (file_enum.sql) and returns its name; "" when the scan has no
// files.
func fileEnum(ctx context.Context, db *duck.DB, table string, scan *sources.Scan) (string, error) {
	return createFileEnum(ctx, db, table, namesOf(scan))
}

// createFileEnum creates the ENUM type of table's __file column from the
// file names values (file_enum.sql: sorted byte for byte, each once; one of
// an earlier attempt is dropped first) and returns its name; "" when values
// is empty.
func createFileEnum(ctx context.Context, db *duck.DB, table string, values []string) (string, error) {
	if len(values) == 0 {
		return "", nil
	}
	values = slices.Compact(slices.Sorted(slices.Values(values)))
	name := table + "__file_enum"
	if err := db.ExecFile(ctx, statements(), queries.LoadDropFileEnum, struct{ Name string }{name}); err != nil {
		return "", err
	}
	if err := db.ExecFile(ctx, statements(), queries.LoadFileEnum, struct {
		Name   string
		Values []string
	}{name, values}); err != nil {
		return "", err
	}
	return name, nil
}

func namesOf(scan *sources.Scan) []string {
	out := make([]string, len(scan.Files))
	for i, f := range scan.Files {
		out[i] = f.Name
	}
	return out
}

// runError is a DuckDB reader's error for a run of files, named by them.
type runError struct {
	files string
	err   error
}

func (e *runError) Error() string { return e.files + ": " + e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

func columnsKey(cols []sources.Column) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(c.Name + "\x00" + c.Type + "\x00")
	}
	return b.String()
}

// physicalLines makes __line the physical line a CSV record starts on.
// DuckDB numbers records, not lines: after a blank line or a quoted field
// that spans lines the two differ, and evidence pointing at "file:line"
// would send a reader to the wrong record. For each file whose line count
// differs from its record count, the records' start lines are read by the
// source's own CSV reading (Scan.RecordLines) and written into the table.
// Files without blank lines or multi-line fields (the common case) cost one
// pass counting newlines. A file whose quote character is not ASCII keeps
// record numbers, which are right up to the first difference.
func physicalLines(ctx context.Context, db *duck.DB, table string, scan *sources.Scan) error {
	for _, f := range scan.Files {
		lines, err := countLines(f.Path)
		if err != nil {
			return err
		}
		records, err := db.CountFile(ctx, statements(), queries.LoadFileRecords, tableData{table}, f.Name)
		if err != nil {
			return err
		}
		if scan.Header {
			records++
		}
		if records == lines {
			continue
		}
		if len(scan.Quote) != 1 { // a quote outside ASCII (see the doc comment)
			continue
		}
		// __line is set row by row: a view over the raw rows becomes a
		// table first.
		if err := db.Materialize(ctx, table); err != nil {
			return err
		}
		if err := setLines(ctx, db, table, scan, f); err != nil {
			return fmt.Errorf("%s: line numbers: %w", f.Name, err)
		}
	}
	return nil
}

// countLines counts the lines of a file's text (a last line without a
// newline counts), decompressed as every kind reads it.
func countLines(path string) (int64, error) {
	r, err := sources.OpenFile(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	buf := make([]byte, 1<<20)
	var n int64
	var last byte = '\n'
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// setLines reads the start line of every record of one file and sets
// __line from it: the k-th record (from 0) carries the record-numbered
// __line FirstLine+k until then.
func setLines(ctx context.Context, db *duck.DB, table string, scan *sources.Scan, f sources.ScanFile) error {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "rec", Type: arrow.PrimitiveTypes.Int64},
		{Name: "line", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rb := range recs {
			rb.Release()
		}
	}()
	rec := scan.FirstLine
	err := scan.RecordLines(ctx, f, func(line int64) error {
		b.Field(0).(*array.Int64Builder).Append(rec)
		b.Field(1).(*array.Int64Builder).Append(line)
		rec++
		if b.Field(0).Len() == sources.BatchRows {
			recs = append(recs, b.NewRecordBatch())
		}
		return nil
	})
	if err != nil {
		return err
	}
	recs = append(recs, b.NewRecordBatch())
	rr, err := array.NewRecordReader(schema, recs)
	if err != nil {
		return err
	}
	defer rr.Release()
	m := table + "__lines"
	if _, err := db.LoadArrow(ctx, m, rr); err != nil {
		return err
	}
	defer drop(ctx, db, m)
	return db.ExecFile(ctx, statements(), queries.LoadSetLines, struct{ Table, Lines string }{table, m}, f.Name)
}

// declared is what declared_type_check and set_type render: column Column
// of Table converted to Type, Value with CAST and TryValue with TRY_CAST
// (the declared_value fragment); what declared_type_check tests (Check) and
// what it needs for that: the exactness rule of the type (Class, Scale,
// Digits, for a text column: Text; RoundTrip, the column's own type, for a
// typed one) and, for a DST check, the wall-clock value (Wall, the
// declared_wall fragment) and its Zone.
type declared struct {
	Table, Column, Type string
	Value, TryValue     string
	Check               string // convert, exact, gap, repeat
	Class               string // number, date, timestamp or ""
	Scale, Digits       int
	Text                bool
	RoundTrip           string
	Wall, Zone          string
	// NamedWall and NamedZone are SQL of a text's own zone name and its
	// wall-clock time there, for a declared TIMESTAMPTZ (declared_named_zone).
	NamedWall, NamedZone string
}

// exactness is what a declared type holds, from the name DuckDB resolves it
// to (type_of): an integer type is a number of Scale 0, DECIMAL(p,s) one of
// Scale s; a timestamp holds Digits fraction digits of a second
// (TIMESTAMP_S 0, _MS 3, _NS 9, else 6); DATE is a date; TIME is a time of
// day of Digits 6 (TIME_NS 9). Any other type
// (DOUBLE, VARCHAR, BOOLEAN, …) has no class: its text converts as DuckDB
// casts it.
func exactness(resolved string) (class string, scale, digits int) {
	u := strings.ToUpper(resolved)
	if m := decimalType.FindStringSubmatch(u); m != nil {
		if m[3] != "" {
			scale, _ = strconv.Atoi(m[3])
		}
		return "number", scale, 0
	}
	switch u {
	case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT":
		return "number", 0, 0
	case "DATE":
		return "date", 0, 0
	case "TIMESTAMP_S":
		return "timestamp", 0, 0
	case "TIMESTAMP_MS":
		return "timestamp", 0, 3
	case "TIMESTAMP_NS":
		return "timestamp", 0, 9
	case "TIMESTAMP", "TIMESTAMP WITH TIME ZONE":
		return "timestamp", 0, 6
	case "TIME":
		return "time", 0, 6
	case "TIME_NS":
		return "time", 0, 9
	}
	return "", 0, 0
}

// conversion renders the conversion of column (DuckDB type from) of table
// to the declared type typ (which DuckDB resolves to resolved), a
// TIMESTAMP WITH TIME ZONE read in zone.
func conversion(table, column, from, typ, resolved, zone string) (declared, error) {
	from = strings.ToUpper(from)
	data := declared{Table: table, Column: column, Type: typ, Check: "convert", Text: from == "VARCHAR"}
	data.Class, data.Scale, data.Digits = exactness(resolved)
	if !data.Text {
		if _, err := sqlfile.TypeName(from); err == nil && !strings.EqualFold(from, resolved) {
			data.RoundTrip = from
		}
	}
	if zone == "" {
		zone = "UTC"
	}
	v := struct {
		Column, From, Type, Zone, Cast, TryValue string
		Zoneless, Zoned                          bool
	}{Column: column, From: from, Type: typ, Cast: "CAST", Zoneless: zonelessType.MatchString(typ)}
	if zonedType.MatchString(typ) {
		v.Zone = zone
		data.RoundTrip = "" // the zone, not a cast, converts it
	}
	var err error
	if data.Value, err = statements().SQL(queries.LoadDeclaredValue, v); err != nil {
		return data, err
	}
	v.Cast = "TRY_CAST"
	if data.TryValue, err = statements().SQL(queries.LoadDeclaredValue, v); err != nil {
		return data, err
	}
	// A text naming its zone (10:00 Europe/Berlin) is checked in that zone,
	// whatever the input's.
	if v.Zone != "" && from == "VARCHAR" {
		for _, part := range []struct {
			name string
			to   *string
		}{{"wall", &data.NamedWall}, {"zone", &data.NamedZone}} {
			if *part.to, err = statements().SQL(queries.LoadDeclaredNamedZone, struct{ Column, Part string }{column, part.name}); err != nil {
				return data, err
			}
		}
	}
	// A zone with DST changes (any but UTC) makes a wall-clock time skipped
	// or repeated: checked for a TIMESTAMPTZ read in it and for a zone-less
	// TIMESTAMP, which the checks read in it.
	if zone != "UTC" && (v.Zone != "" || v.Zoneless) {
		v.Zoned, v.TryValue = v.Zone != "", data.TryValue
		data.Zone = zone
		if data.Wall, err = statements().SQL(queries.LoadDeclaredWall, v); err != nil {
			return data, err
		}
	}
	return data, nil
}

// zoneName is the name a timestamp text gives its zone after the time of
// day (IST, Europe/Berlin, UTC), in group 1.
var zoneName = regexp.MustCompile(`\d\s*([A-Za-z][A-Za-z0-9_+/-]*)\s*$`)

// ianaZone is a zone name that rules/inexact_text.sql accepts: Z, UTC or
// Area/Location with an area of the tz database (Etc/Unknown, ICU's name
// for no zone, is none).
var ianaZone = regexp.MustCompile(`^(Z|z|UTC|(?i:(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc|Brazil|Canada|Chile|Mexico|US)(/[A-Za-z0-9_+-]+)+))$`)

// badZoneName is the zone name of timestamp text v when it is no zone
// the rule accepts (an abbreviation such as IST, utc, SystemV/AST4), for
// the error; "" otherwise.
func badZoneName(v string) string {
	m := zoneName.FindStringSubmatch(v)
	if m == nil || ianaZone.MatchString(m[1]) && !strings.EqualFold(m[1], "Etc/Unknown") {
		return ""
	}
	return m[1]
}

// zonedType is a declared TIMESTAMP WITH TIME ZONE, in either spelling.
var zonedType = regexp.MustCompile(`(?i)^\s*(TIMESTAMPTZ|TIMESTAMP\s+WITH\s+TIME\s+ZONE)\s*$`)

// zonelessType is a declared zone-less TIMESTAMP (any precision).
var zonelessType = regexp.MustCompile(`(?i)^\s*(TIMESTAMP(_S|_MS|_NS|_US)?|TIMESTAMP\s+WITHOUT\s+TIME\s+ZONE|DATETIME)\s*$`)

var decimalType = regexp.MustCompile(`(?i)^\s*(DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)\s*$`)

// ResolveType returns the name DuckDB resolves a declared type (the types:
// option) to — INTEGER for int, DECIMAL(18,3) for DECIMAL — without reading
// any row. A type DuckDB does not have (FOO) or refuses (DECIMAL(5,10)) is a
// spec.ErrInvalid (exit 2) naming the input role, the column and the type.
func ResolveType(ctx context.Context, db *duck.DB, role string, d sources.Column) (string, error) {
	_, rows, err := db.StringsFile(ctx, statements(), queries.LoadTypeOf, struct{ Type string }{d.Type})
	if err == nil && len(rows) == 1 && rows[0][0] != nil {
		return *rows[0][0], nil
	}
	why := "not a type"
	if err != nil {
		why = duckReason(err)
	}
	return "", fmt.Errorf("%w: %s: types: column %s: %s is not a DuckDB type (%s); use one such as VARCHAR, BIGINT, DECIMAL(18,2), DATE, TIMESTAMP or TIMESTAMPTZ", spec.ErrInvalid, role, d.Name, d.Type, why)
}

// duckReason is the first line of a DuckDB error without the statement
// DuckDB's driver prefixes ("duckdb: SELECT …: Catalog Error: …").
func duckReason(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if i := strings.Index(msg, " Error: "); i >= 0 {
		if j := strings.LastIndex(msg[:i], ": "); j >= 0 {
			msg = msg[j+2:]
		}
	}
	return strings.TrimSpace(msg)
}

// CheckDeclared refuses, before any row is read, what an input's declared
// types and value formats cannot read exactly: a type DuckDB does not have
// or refuses (ResolveType), and a timestampformat: (or dateformat:) that
// reads a zone or offset (%z, %Z) for a column declared a zone-less
// TIMESTAMP (or DATE), which would drop it. Errors are spec.ErrInvalid
// (exit 2) naming role, column and type.
func CheckDeclared(ctx context.Context, db *duck.DB, role string, types []sources.Column, f sources.ValueFormats) error {
	for _, d := range types {
		if _, err := ResolveType(ctx, db, role, d); err != nil {
			return err
		}
		if err := zonePattern(role, d, f); err != nil {
			return err
		}
	}
	return nil
}

// zonePattern refuses a date or timestamp pattern with %z or %Z for a
// column declared DATE or a zone-less TIMESTAMP: the pattern reads an
// offset that the type has no place for (strptime's instant would become
// UTC wall-clock time, then be read in the input's zone).
func zonePattern(role string, d sources.Column, f sources.ValueFormats) error {
	key, pattern := "", ""
	switch {
	case zonelessType.MatchString(d.Type):
		key, pattern = "timestampformat", f.TimestampFormat
	case strings.EqualFold(strings.TrimSpace(d.Type), "DATE"):
		key, pattern = "dateformat", f.DateFormat
	default:
		return nil
	}
	if strings.Contains(pattern, "%z") || strings.Contains(pattern, "%Z") {
		return fmt.Errorf("%w: %s: %s: %q reads a zone or offset (%%z, %%Z), but column %s is declared %s, which has none and would drop it: declare TIMESTAMPTZ", spec.ErrInvalid, role, key, pattern, d.Name, d.Type)
	}
	return nil
}

// exactReason says why a value (nil for none) that converts was refused by
// the exact check of d, for the error.
func exactReason(d declared, value *string) string {
	switch {
	case d.Text && d.Class == "timestamp" && value != nil && badZoneName(*value) != "":
		return fmt.Sprintf("it names its zone %s, which is neither Z, UTC, an offset nor an IANA zone name (Area/Location): an abbreviation names no one zone (IST is India's, Israel's or Ireland's; PST is read as -07:00 in July) and DuckDB's cast would pick one without a word; write the offset (+05:30) or an IANA name (Asia/Kolkata, Europe/Dublin)", badZoneName(*value))
	case d.Text && d.Class == "number" && d.Scale == 0 && decimalType.MatchString(d.Type):
		return "a DECIMAL of scale 0 holds a plain integer (an optional sign and digits: no fraction digits, exponent, hex or _), and DuckDB's cast would round a fraction (1.5 becoming 2)"
	case d.Text && d.Class == "number" && d.Scale == 0:
		return "an integer type holds a plain integer (an optional sign and digits: no fraction digits, exponent, hex or _), and DuckDB's cast would round a fraction (1.5 becoming 2)"
	case d.Text && d.Class == "number":
		return fmt.Sprintf("it holds a plain decimal number (an optional sign, digits, a point: no exponent, hex or _) of at most %d fraction digits, and DuckDB's cast would round or rewrite the value", d.Scale)
	case d.Text && d.Class == "date":
		return "a DATE is a plain date written YYYY-MM-DD (a two-digit month and day), and DuckDB's cast would read another layout as some day or drop a time of day (even 00:00:00): a dateformat: for another layout, or declare TIMESTAMP for a time of day"
	case d.Text && d.Class == "time":
		return fmt.Sprintf("a %s is a plain time of day written H:MM or H:MM:SS with at most %d fraction digits of a second (0:00 to 23:59:59, or 24:00:00), and DuckDB's cast would drop a date (2024-01-01 12:00:00 becoming 12:00:00), an offset or zone (12:00:00+05 becoming 12:00:00) or further non-zero digits: declare TIMESTAMP or TIMESTAMPTZ for a date and time", strings.ToUpper(strings.TrimSpace(d.Type)), d.Digits)
	case d.Text && d.Class == "timestamp":
		return fmt.Sprintf("it holds an ISO 8601 timestamp (YYYY-MM-DD, optionally T or a space and hh:mm[:ss[.fraction]], and a zone or offset) with at most %d fraction digits of a second, and DuckDB's cast would read another layout (epoch, 1970-1-1, 24:00:00) as some instant or drop further non-zero digits (TIMESTAMP_NS holds nanoseconds, zone-less): declare a timestampformat: for another layout", d.Digits)
	}
	return fmt.Sprintf("the %s value reads back as another value once converted (the declared type holds less)", d.RoundTrip)
}

// applyDeclared converts each column the location declares a type for
// (Input.Declared, sorted by column) after checking every value: a value
// that does not convert, or that the cast would change (exactness: a
// fraction an integer type or a DECIMAL would round, a number not written
// as a plain decimal, a date with a time of day, a timestamp with more
// fraction digits than its type holds, a time of day not written as a plain
// H:MM[:SS[.fraction]] (a date, an offset or more fraction digits than TIME
// holds, which the cast drops), a typed value that reads back as
// another), or a wall-clock time that a DST change of zone skips or
// repeats, is an error naming file, line, column and value and what was
// expected (and, when no format was declared for a date, timestamp or
// decimal comma, the option that would read it). A type DuckDB does not
// have is a spec.ErrInvalid (ResolveType). A declared column the input
// lacks is an ErrInvalidLocation; declared types name the control's
// columns, after rename. A declared TIMESTAMP WITH TIME ZONE reads
// zone-less values in zone ("" is UTC).
func applyDeclared(ctx context.Context, db *duck.DB, table, role string, declared []sources.Column, formats sources.ValueFormats, rename map[string]string, zone string) error {
	if len(declared) == 0 {
		return nil
	}
	cols, err := db.Columns(ctx, table)
	if err != nil {
		return err
	}
	have := map[string]string{}
	for _, c := range cols {
		have[c.Name] = c.Type
	}
	for _, d := range declared {
		from, ok := have[d.Name]
		if !ok {
			if to, renamed := rename[d.Name]; renamed {
				return fmt.Errorf("%w: option types names column %s, which rename: calls %s: types: names the control's columns", sources.ErrInvalidLocation, d.Name, to)
			}
			return fmt.Errorf("%w: option types names column %s, which the input does not have", sources.ErrInvalidLocation, d.Name)
		}
		resolved, err := ResolveType(ctx, db, role, d)
		if err != nil {
			return err
		}
		data, err := conversion(table, d.Name, from, d.Type, resolved, zone)
		if err != nil {
			return err
		}
		msg, value, bad, err := declaredCheck(ctx, db, data)
		if err != nil {
			return err
		}
		if bad {
			hint := formatHint(d.Type, formats, value)
			if zonelessType.MatchString(d.Type) {
				// The value may be a good timestamp that names its zone, which
				// a zone-less TIMESTAMP would silently drop: then that, not a
				// format, is what to declare.
				zoned, err := conversion(table, d.Name, from, "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "UTC")
				if err != nil {
					return err
				}
				zmsg, _, zbad, err := declaredCheck(ctx, db, zoned)
				if err != nil {
					return err
				}
				if !zbad || zmsg != msg {
					hint = " (a value naming a zone or offset is not a zone-less TIMESTAMP: declare TIMESTAMPTZ)"
				}
			}
			return fmt.Errorf("%s does not convert to the declared type %s%s", msg, d.Type, hint)
		}
		for _, c := range []string{"exact", "gap", "repeat", "gap named", "repeat named"} {
			check, named := strings.CutSuffix(c, " named")
			if c != "exact" && (named && data.NamedWall == "" || !named && data.Wall == "") {
				continue
			}
			run := data
			run.Check = check
			if !named {
				run.NamedWall = ""
			}
			msg, value, bad, err := declaredCheck(ctx, db, run)
			if err != nil {
				return err
			}
			if !bad {
				continue
			}
			if named {
				return fmt.Errorf("%s names its zone, and its wall-clock time there %s, read as the declared type %s: write the value with its offset", msg, map[string]string{"gap": "does not exist (a DST change skips it)", "repeat": "occurs twice (a DST change repeats it): which instant it is cannot be told"}[check], d.Type)
			}
			c = check
			switch c {
			case "exact":
				advice := ""
				if value != nil && !formats.Numbers() {
					advice = decimalCapacity(d.Type, *value)
				}
				return fmt.Errorf("%s does not convert exactly to the declared type %s: %s%s", msg, d.Type, exactReason(data, value), advice)
			case "gap":
				return fmt.Errorf("%s is a wall-clock time that does not exist in %s (a DST change skips it), read as the declared type %s: check the input's time_zone, or write the value with its offset%s", msg, zone, d.Type, declareZoned(d.Type))
			default:
				return fmt.Errorf("%s is a wall-clock time that occurs twice in %s (a DST change repeats it), read as the declared type %s: which instant it is cannot be told; write the value with its offset%s", msg, zone, d.Type, declareZoned(d.Type))
			}
		}
		if err := db.ExecFile(ctx, statements(), queries.LoadSetType, data); err != nil {
			return err
		}
	}
	return nil
}

// declareZoned is the advice to declare TIMESTAMPTZ, for a zone-less type.
func declareZoned(typ string) string {
	if zonedType.MatchString(typ) {
		return ""
	}
	return " and declare TIMESTAMPTZ"
}

// declaredCheck runs declared_type_check for data and returns the first
// value it finds, as BadValue formats it, and the value itself (firstBad).
func declaredCheck(ctx context.Context, db *duck.DB, data declared) (string, *string, bool, error) {
	q, err := statements().SQL(queries.LoadDeclaredTypeCheck, data)
	if err != nil {
		return "", nil, false, err
	}
	msg, value, bad, err := firstBad(ctx, db, data.Table, q, data.Column)
	if err != nil {
		return "", nil, false, fmt.Errorf("check declared type %s of %s: %w", data.Type, data.Column, err)
	}
	return msg, value, bad, nil
}
