package load

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// exactCasts are the casts readParts lets a Parquet file's column take to
// the type the kind's records hold, keyed by the type read_parquet reads
// it as and the records' type: each changes no value. A UUID reads as its
// canonical text (8-4-4-4-12, lower case), which is how the iceberg kind
// gives a uuid column.
var exactCasts = map[[2]string]bool{
	{"UUID", "VARCHAR"}: true,
}

// readParquetOwn are the names read_parquet gives columns of its own
// (file_row_number, file_index, filename): a table or file with a column
// of one of them is read through the kind's records, so that no column of
// its own is mistaken for one of them.
var readParquetOwn = []string{"file_row_number", "file_index", "filename"}

// readParts reads the parts of ps (sources.PartScanner) into table. The
// table is made, empty, from the records' Arrow schema, so its columns and
// types are those the kind's records load as (duck.DB.LoadArrow); then the
// parts are appended in read order: each run of parts whose Parquet files
// DuckDB reads as the kind does (decideParts) by read_parquet_parts.sql,
// each other run through the kind's records (PartScan.Records, loaded into
// a table of their own, then appended by insert_from.sql). When no part is
// read natively (or PartScan.SourceRead says why none may be), the records
// of every part are loaded at once, as readRecords loads a Read's. How
// each part was read goes back to the kind (PartScan.Decided).
//
// Errors: the kind's, DuckDB's reader's (shortened, naming the files), and
// — a bug, never a silent difference — rows whose file read_parquet did
// not match to its part, or a row count other than the parts'.
func readParts(ctx context.Context, db *duck.DB, table string, ps sources.PartScanner) (*sources.Input, error) {
	in, scan, err := ps.ScanParts(ctx)
	if err != nil {
		return nil, err
	}
	reads := make([]sources.PartRead, len(scan.Parts))
	for i, p := range scan.Parts {
		reads[i].Why = p.Why
		if scan.SourceRead != "" {
			reads[i].Why = scan.SourceRead
		}
	}
	schema, err := sources.RecordSchema(scan.Fields)
	if err != nil {
		return nil, err
	}
	var want []string
	for _, f := range schema.Fields() {
		want = append(want, f.Name)
	}
	native := false
	var casts [][]bool
	if scan.SourceRead == "" && slices.ContainsFunc(scan.Parts, func(p sources.Part) bool { return p.File != nil }) {
		empty, err := array.NewRecordReader(schema, nil)
		if err != nil {
			return nil, err
		}
		_, err = db.LoadArrow(ctx, table, empty)
		empty.Release()
		if err != nil {
			return nil, err
		}
		if native, casts, err = decideParts(ctx, db, table, scan, reads); err != nil {
			return nil, err
		}
		if !native {
			drop(ctx, db, table)
		}
	}
	if native {
		err = appendParts(ctx, db, table, in.Location, scan, reads, casts)
	} else {
		err = loadRecords(ctx, db, table, scan)
	}
	if err != nil {
		return nil, err
	}
	if err := sameNames(ctx, db, table, in.Location, want); err != nil {
		return nil, err
	}
	if scan.Decided != nil {
		scan.Decided(reads)
	}
	return in, nil
}

// loadRecords loads the records of every part of scan into table, as
// readRecords loads a Read's.
func loadRecords(ctx context.Context, db *duck.DB, table string, scan *sources.PartScan) error {
	rr, err := scan.Records(ctx, 0, len(scan.Parts), 0)
	if err != nil {
		return err
	}
	_, err = db.LoadArrow(ctx, table, rr)
	rr.Release()
	if err != nil {
		return err
	}
	return arrowFileEnum(ctx, db, table)
}

// decideParts marks in reads the parts of scan that DuckDB reads as the
// kind's records hold them (Native), and says why of the others: a part
// with a Parquet file (Part.File) whose path holds no glob character,
// whose footer counts the part's rows, and each of whose columns the part
// reads is read by read_parquet as the empty table's column of that field
// is typed, or takes an exact cast to it (exactCasts); no column of the
// table or the file may have a name read_parquet gives a column of its own
// (readParquetOwn). It reports whether any part is read natively, and for
// each such part the user fields whose column it casts.
func decideParts(ctx context.Context, db *duck.DB, table string, scan *sources.PartScan, reads []sources.PartRead) (bool, [][]bool, error) {
	for _, f := range scan.Fields {
		for _, own := range readParquetOwn {
			if strings.EqualFold(f.Name, own) {
				for i := range reads {
					if scan.Parts[i].File != nil {
						reads[i].Why = fmt.Sprintf("column %s has the name of a column read_parquet adds of its own", f.Name)
					}
				}
				return false, nil, nil
			}
		}
	}
	cols, err := db.Columns(ctx, table)
	if err != nil {
		return false, nil, err
	}
	typeOf := map[string]string{}
	for _, c := range cols {
		typeOf[c.Name] = c.Type
	}
	var paths []string
	for i, p := range scan.Parts {
		switch {
		case p.File == nil:
		case strings.ContainsAny(p.File.Path, globChars):
			reads[i].Why = "its path holds a character read_parquet takes as a glob"
		case len(p.File.Columns) != len(scan.Fields):
			return false, nil, fmt.Errorf("load: part %s gives %d columns for %d fields", p.Name, len(p.File.Columns), len(scan.Fields))
		default:
			paths = append(paths, p.File.Path)
		}
	}
	if len(paths) == 0 {
		return false, nil, nil
	}
	paths = slices.Compact(slices.Sorted(slices.Values(paths)))
	counts, err := footerRows(ctx, db, paths)
	if err != nil {
		return false, nil, err
	}
	fileTypes := map[string]map[string]string{}
	fileErr := map[string]string{}
	for _, p := range paths {
		_, rows, err := db.StringsFile(ctx, statements(), queries.LoadParquetColumns, struct{ File string }{p})
		if err != nil {
			if ctx.Err() != nil {
				return false, nil, err
			}
			fileErr[p] = "read_parquet cannot describe it: " + shortReaderError(err).Error()
			continue
		}
		t := map[string]string{}
		for _, r := range rows {
			if r[0] != nil && r[1] != nil {
				t[*r[0]] = *r[1]
			}
		}
		fileTypes[p] = t
	}
	any := false
	casts := make([][]bool, len(scan.Parts))
	for i, p := range scan.Parts {
		if p.File == nil || reads[i].Why != p.Why {
			continue
		}
		casts[i] = make([]bool, len(scan.Fields))
		why := ""
		switch n, ok := counts[p.File.Path]; {
		case fileErr[p.File.Path] != "":
			why = fileErr[p.File.Path]
		case !ok:
			why = "read_parquet's footer row counts do not name it"
		case n != p.Rows:
			why = fmt.Sprintf("its footer counts %d rows, the part %d", n, p.Rows)
		default:
			why = columnsDiffer(scan, i, typeOf, fileTypes[p.File.Path], casts[i])
		}
		if why != "" {
			reads[i].Why = why
			continue
		}
		reads[i] = sources.PartRead{Native: true}
		any = true
	}
	return any, casts, nil
}

// columnsDiffer says why part i's file is not read as the table's columns
// are typed ("" when it is): a column of the file missing, read as
// another type with no exact cast to the table's, or one named as a column
// read_parquet adds of its own. It marks in cast the fields whose column
// takes an exact cast.
func columnsDiffer(scan *sources.PartScan, i int, typeOf, fileTypes map[string]string, cast []bool) string {
	for name := range fileTypes {
		for _, own := range readParquetOwn {
			if strings.EqualFold(name, own) {
				return fmt.Sprintf("its column %s has the name of a column read_parquet adds of its own", name)
			}
		}
	}
	for j, c := range scan.Parts[i].File.Columns {
		if c.Column == "" {
			continue
		}
		ft, ok := fileTypes[c.Column]
		want := typeOf[scan.Fields[j].Name]
		switch {
		case !ok:
			return fmt.Sprintf("read_parquet finds no column %s in it", c.Column)
		case ft == want:
		case exactCasts[[2]string{ft, want}]:
			cast[j] = true
		default:
			return fmt.Sprintf("read_parquet reads its column %s as %s, the records hold %s", c.Column, ft, want)
		}
	}
	return ""
}

// footerRows is the row count of each Parquet file, from its footer
// (parquet_rows.sql), by path.
func footerRows(ctx context.Context, db *duck.DB, paths []string) (map[string]int64, error) {
	_, rows, err := db.StringsFile(ctx, statements(), queries.LoadParquetRows, struct{ Files []string }{paths})
	if err != nil {
		return nil, err
	}
	counts := map[string]int64{}
	for _, r := range rows {
		if r[0] == nil || r[1] == nil {
			continue
		}
		n, err := strconv.ParseInt(*r[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parquet footer row count %q: %w", *r[1], err)
		}
		counts[*r[0]] = n
	}
	return counts, nil
}

// partColumn is one column of read_parquet_parts.sql: the table's column
// Name of type Type, from the file's column Source (cast to Type when
// Cast) or, Constant, from the parts' values Values (a list literal of
// text, in the run's order).
type partColumn struct {
	Name, Source, Type, Values string
	Cast, Constant             bool
}

// appendParts appends the parts of scan to the empty table, in order: the
// runs of parts marked Native in reads by read_parquet_parts.sql, the
// others through the kind's records; __file is an ENUM of the parts'
// names.
func appendParts(ctx context.Context, db *duck.DB, table, location string, scan *sources.PartScan, reads []sources.PartRead, casts [][]bool) error {
	names := make([]string, len(scan.Parts))
	for i, p := range scan.Parts {
		names[i] = p.Name
	}
	enum, err := createFileEnum(ctx, db, table, names)
	if err != nil {
		return err
	}
	if err := db.ExecFile(ctx, statements(), queries.LoadFileEnumColumn, struct{ Table, Enum string }{table, enum}); err != nil {
		return err
	}
	cols, err := db.Columns(ctx, table)
	if err != nil {
		return err
	}
	typeOf := map[string]string{}
	for _, c := range cols {
		typeOf[c.Name] = c.Type
	}
	// total is the rows appended so far: the first __row of the next run.
	var total int64
	for start := 0; start < len(scan.Parts); {
		end := start + 1
		for end < len(scan.Parts) && reads[end].Native == reads[start].Native {
			end++
		}
		var n int64
		if reads[start].Native {
			n, err = appendNative(ctx, db, table, enum, scan, start, end, total, typeOf, casts)
			if err != nil {
				files := make([]string, 0, end-start)
				for _, p := range scan.Parts[start:end] {
					files = append(files, p.Name)
				}
				err = fmt.Errorf("read %s: %s: %w", location, strings.Join(files, ", "), shortReaderError(err))
			}
		} else {
			n, err = appendRecords(ctx, db, table, scan, start, end, total)
		}
		if err != nil {
			return err
		}
		total += n
		start = end
	}
	missing, err := db.CountFile(ctx, statements(), queries.LoadMissingRow, tableData{table})
	if err != nil {
		return err
	}
	n, err := db.CountFile(ctx, statements(), queries.LoadCountRows, tableData{table})
	if err != nil {
		return err
	}
	if missing != 0 || n != total {
		return fmt.Errorf("load: %s: %d rows loaded (%d without their file or row number), %d appended", location, n, missing, total)
	}
	return nil
}

// appendNative appends the parts [start, end) of scan, each read natively,
// with one read_parquet_parts.sql, __row counting from firstRow, and
// returns the rows appended (the parts' Rows); a column is cast when a
// part of the run casts it (a cast to the type it already has changes
// nothing).
func appendNative(ctx context.Context, db *duck.DB, table, enum string, scan *sources.PartScan, start, end int, firstRow int64, typeOf map[string]string, casts [][]bool) (int64, error) {
	run := scan.Parts[start:end]
	paths := make([]string, len(run))
	names := make([]string, len(run))
	offs := make([]string, len(run))
	next := firstRow
	for i, p := range run {
		paths[i], names[i], offs[i] = p.File.Path, p.Name, strconv.FormatInt(next, 10)
		next += p.Rows
	}
	cols := make([]partColumn, len(scan.Fields))
	for j, f := range scan.Fields {
		c := partColumn{Name: f.Name, Type: typeOf[f.Name]}
		if src := run[0].File.Columns[j].Column; src != "" {
			c.Source = src
			for i := start; i < end; i++ {
				c.Cast = c.Cast || casts[i][j]
			}
		} else {
			c.Constant = true
			vals := make([]string, len(run))
			for i, p := range run {
				if v := p.File.Columns[j].Value; v != nil {
					vals[i] = duck.Literal(*v)
				} else {
					vals[i] = "NULL"
				}
			}
			c.Values = "[" + strings.Join(vals, ", ") + "]"
		}
		cols[j] = c
	}
	n, err := db.ExecCountFile(ctx, statements(), queries.LoadReadParquetParts, struct {
		Table, Enum, Offsets string
		Paths, Names         []string
		Columns              []partColumn
	}{table, enum, "[" + strings.Join(offs, ", ") + "]", paths, names, cols})
	if err != nil {
		return 0, err
	}
	if n != next-firstRow {
		return 0, fmt.Errorf("load: read_parquet appended %d rows of files whose footers count %d", n, next-firstRow)
	}
	return n, nil
}

// appendRecords appends the parts [start, end) of scan through the kind's
// records, __row counting from firstRow — loaded into a table of their
// own, then appended to table — and returns the rows appended.
func appendRecords(ctx context.Context, db *duck.DB, table string, scan *sources.PartScan, start, end int, firstRow int64) (int64, error) {
	rr, err := scan.Records(ctx, start, end, firstRow)
	if err != nil {
		return 0, err
	}
	tmp := table + "__part"
	_, err = db.LoadArrow(ctx, tmp, rr)
	rr.Release()
	if err != nil {
		return 0, err
	}
	defer drop(ctx, db, tmp)
	return db.ExecCountFile(ctx, statements(), queries.LoadInsertFrom, struct{ Table, From string }{table, tmp})
}
