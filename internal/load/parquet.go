package load

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

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

func columnsKey(cols []sources.Column) string {
	var b strings.Builder
	for _, c := range cols {
		b.WriteString(c.Name + "\x00" + c.Type + "\x00")
	}
	return b.String()
}
