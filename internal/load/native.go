package load

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
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
// holding a glob character (globChars), and the source not asking for its
// Read (Scan.SourceRead: a Parquet decimal DuckDB would misread).
func native(scan *sources.Scan) bool {
	if scan.Encoding != "" || scan.SourceRead != "" {
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
