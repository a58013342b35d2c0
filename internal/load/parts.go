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
// (file_row_number, file_index, filename), and the raw table's __part and
// __line: a table or file with a column of one of them is read through the
// kind's records, so that no column of its own is mistaken for one of
// them.
var readParquetOwn = []string{"file_row_number", "file_index", "filename", sources.PartColumn, sources.LineColumn}

// readParts reads the parts of ps (sources.PartScanner) into table. When
// DuckDB reads some of the parts' Parquet files as the kind's records hold
// them (decideParts), table is a view (parts_view.sql) over a raw table of
// the fields that are not constant within a part, __part and __line
// (parts_raw.sql, typed as the records load: a table made from their Arrow
// schema, empty, says how) joined to a table of the parts (__file and the
// constants, parts_table.sql); the raw rows are appended in read order,
// each run of such files by read_parquet (parts_read_parquet.sql), each
// other run through the kind's records (PartScan.Records, loaded, then
// appended: parts_insert_records.sql). Otherwise — no such file, or
// PartScan.SourceRead says why none may be — the records of every part are
// loaded at once, as readRecords loads a Read's. How each part was read
// goes back to the kind (PartScan.Decided).
//
// Errors: the kind's, DuckDB's reader's (shortened, naming the files), and
// — a bug, never a silent difference — a row count other than the parts'.
func readParts(ctx context.Context, db *duck.DB, table string, ps sources.PartScanner) (*sources.Input, error) {
	in, scan, err := ps.ScanParts(ctx)
	if err != nil {
		return nil, err
	}
	if len(scan.Constant) != len(scan.Fields) {
		return nil, fmt.Errorf("load: a part scan of %d fields marks %d constant or not", len(scan.Fields), len(scan.Constant))
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
	var typeOf map[string]string
	if scan.SourceRead == "" && slices.ContainsFunc(scan.Parts, func(p sources.Part) bool { return p.File != nil }) {
		// The table the records would make, empty: its types.
		empty, err := array.NewRecordReader(schema, nil)
		if err != nil {
			return nil, err
		}
		_, err = db.LoadArrow(ctx, table, empty)
		empty.Release()
		if err != nil {
			return nil, err
		}
		if typeOf, err = columnTypes(ctx, db, table); err == nil {
			native, casts, err = decideParts(ctx, db, scan, reads, typeOf)
		}
		if err != nil || !native {
			drop(ctx, db, table)
		}
		if err != nil {
			return nil, err
		}
	}
	if native {
		err = loadParts(ctx, db, table, in.Location, scan, reads, casts, typeOf)
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

// columnTypes are the types of table's columns, by name.
func columnTypes(ctx context.Context, db *duck.DB, table string) (map[string]string, error) {
	cols, err := db.Columns(ctx, table)
	if err != nil {
		return nil, err
	}
	typeOf := map[string]string{}
	for _, c := range cols {
		typeOf[c.Name] = c.Type
	}
	return typeOf, nil
}

// loadRecords loads the records of every part of scan into table, as
// readRecords loads a Read's.
func loadRecords(ctx context.Context, db *duck.DB, table string, scan *sources.PartScan) error {
	rr, err := scan.Records(ctx, 0, len(scan.Parts), 0, false)
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
// whose footer counts the part's rows, and each of whose columns read is
// read by read_parquet as typeOf (the records' types) says — asked of one
// file per Parquet schema the kind tells apart (PartFile.Schema) — or
// takes an exact cast to it (exactCasts); no field or column of the file
// may have a name read_parquet, or the raw table, gives a column of its
// own (readParquetOwn). It reports whether any part is read natively, and for
// each such part the fields (not constant) whose column it casts.
func decideParts(ctx context.Context, db *duck.DB, scan *sources.PartScan, reads []sources.PartRead, typeOf map[string]string) (bool, [][]bool, error) {
	for _, f := range scan.Fields {
		if ownName(f.Name) {
			for i := range reads {
				if scan.Parts[i].File != nil {
					reads[i].Why = fmt.Sprintf("column %s has the name of a column the loader's reader adds of its own", f.Name)
				}
			}
			return false, nil, nil
		}
	}
	var data []string
	for j, f := range scan.Fields {
		if !scan.Constant[j] {
			data = append(data, f.Name)
		}
	}
	var paths []string
	for i, p := range scan.Parts {
		switch {
		case p.File == nil:
		case len(p.File.Columns) != len(data) || len(p.Values) != len(scan.Fields)-len(data):
			return false, nil, fmt.Errorf("load: part %s gives %d columns and %d values for %d fields, %d constant", p.Name, len(p.File.Columns), len(p.Values), len(scan.Fields), len(scan.Fields)-len(data))
		case strings.ContainsAny(p.File.Path, globChars):
			reads[i].Why = "its path holds a character read_parquet takes as a glob"
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
	// The types read_parquet reads each file's columns as: asked of one
	// file of each Parquet schema (PartFile.Schema), of every file that
	// has none.
	fileTypes := map[string]map[string]string{}
	fileErr := map[string]string{}
	asked := map[string]string{} // Schema → the file asked
	candidate := map[string]bool{}
	for _, p := range paths {
		candidate[p] = true
	}
	for _, p := range scan.Parts {
		if p.File == nil || !candidate[p.File.Path] || fileTypes[p.File.Path] != nil || fileErr[p.File.Path] != "" {
			continue
		}
		path := p.File.Path
		if p.File.Schema != "" {
			if first, ok := asked[p.File.Schema]; ok {
				fileTypes[path], fileErr[path] = fileTypes[first], fileErr[first]
				continue
			}
			asked[p.File.Schema] = path
		}
		_, rows, err := db.StringsFile(ctx, statements(), queries.LoadParquetColumns, struct{ File string }{path})
		if err != nil {
			if ctx.Err() != nil {
				return false, nil, err
			}
			fileErr[path] = "read_parquet cannot describe it: " + shortReaderError(err).Error()
			continue
		}
		t := map[string]string{}
		for _, r := range rows {
			if r[0] != nil && r[1] != nil {
				t[*r[0]] = *r[1]
			}
		}
		fileTypes[path] = t
	}
	any := false
	casts := make([][]bool, len(scan.Parts))
	for i, p := range scan.Parts {
		if p.File == nil || reads[i].Why != p.Why {
			continue
		}
		casts[i] = make([]bool, len(data))
		why := ""
		switch n, ok := counts[p.File.Path]; {
		case fileErr[p.File.Path] != "":
			why = fileErr[p.File.Path]
		case !ok:
			why = "read_parquet's footer row counts do not name it"
		case n != p.Rows:
			why = fmt.Sprintf("its footer counts %d rows, the part %d", n, p.Rows)
		default:
			why = columnsDiffer(p.File.Columns, data, typeOf, fileTypes[p.File.Path], casts[i])
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

// ownName reports whether name is one of readParquetOwn (in any case).
func ownName(name string) bool {
	return slices.ContainsFunc(readParquetOwn, func(own string) bool { return strings.EqualFold(name, own) })
}

// columnsDiffer says why a file whose columns (by name: fileTypes, as
// read_parquet reads them) give the fields data (columns[j] gives
// data[j]) is not read as the records' types (typeOf) say ("" when it is):
// a column missing, read as another type with no exact cast to the
// records', or named as a column the loader's reader adds of its own. It
// marks in cast the fields whose column takes an exact cast.
func columnsDiffer(columns, data []string, typeOf, fileTypes map[string]string, cast []bool) string {
	for name := range fileTypes {
		if ownName(name) {
			return fmt.Sprintf("its column %s has the name of a column the loader's reader adds of its own", name)
		}
	}
	for j, c := range columns {
		ft, ok := fileTypes[c]
		want := typeOf[data[j]]
		switch {
		case !ok:
			return fmt.Sprintf("read_parquet finds no column %s in it", c)
		case ft == want:
		case exactCasts[[2]string{ft, want}]:
			cast[j] = true
		default:
			return fmt.Sprintf("read_parquet reads its column %s as %s, the records hold %s", c, ft, want)
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

// partLayout names the tables and columns of a part scan's view.
type partLayout struct {
	table, raw, parts, enum, partType string
	// data are the fields that are not constant, in order.
	data []string
	// lines says the raw table stores __line: a part is read through the
	// kind's records (its rows may skip lines). Without, __line is the
	// row's place in its part, from the raw rowid.
	lines bool
}

// loadParts makes table the view of the parts of scan over a raw table
// (readParts): the raw table and the parts' table, the raw rows appended
// run by run in read order — the parts marked Native in reads by
// read_parquet, the others through the kind's records — then the view.
// The tables are dropped on error.
func loadParts(ctx context.Context, db *duck.DB, table, location string, scan *sources.PartScan, reads []sources.PartRead, casts [][]bool, typeOf map[string]string) (err error) {
	l := partLayout{table: table, raw: table + "__raw", parts: table + "__parts", partType: "USMALLINT"}
	l.lines = slices.ContainsFunc(reads, func(r sources.PartRead) bool { return !r.Native })
	if len(scan.Parts) > 1<<16 {
		l.partType = "UINTEGER"
	}
	for j, f := range scan.Fields {
		if !scan.Constant[j] {
			l.data = append(l.data, f.Name)
		}
	}
	defer func() {
		if err != nil {
			drop(ctx, db, l.raw)
			drop(ctx, db, l.parts)
		}
	}()
	if err := db.ExecFile(ctx, statements(), queries.LoadPartsRaw, struct {
		Raw, Empty, PartType string
		Lines                bool
		Columns              []string
	}{l.raw, table, l.partType, l.lines, l.data}); err != nil {
		return err
	}
	drop(ctx, db, table) // the empty table the types came from
	if err := partsTable(ctx, db, &l, scan, typeOf); err != nil {
		return err
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
			n, err = appendNative(ctx, db, l, scan, start, end, typeOf, casts)
			if err != nil {
				files := make([]string, 0, end-start)
				for _, p := range scan.Parts[start:end] {
					files = append(files, p.Name)
				}
				err = fmt.Errorf("read %s: %s: %w", location, strings.Join(files, ", "), shortReaderError(err))
			}
		} else {
			n, err = appendRecords(ctx, db, l, scan, start, end, total)
		}
		if err != nil {
			return err
		}
		total += n
		start = end
	}
	if n, err := db.CountFile(ctx, statements(), queries.LoadCountRows, tableData{l.raw}); err != nil {
		return err
	} else if n != total {
		return fmt.Errorf("load: %s: %d rows loaded, %d appended", location, n, total)
	}
	cols := make([]struct {
		Name     string
		Constant bool
	}, len(scan.Fields))
	for j, f := range scan.Fields {
		cols[j].Name, cols[j].Constant = f.Name, scan.Constant[j]
	}
	view, err := statements().SQL(queries.LoadPartsView, struct {
		Table, Raw, Parts string
		Lines             bool
		Columns           any
	}{table, l.raw, l.parts, l.lines, cols})
	if err != nil {
		return err
	}
	return db.ViewOver(ctx, table, l.raw, view, l.parts)
}

// partsTable makes the parts' table of l (parts_table.sql): each part's
// index, __file (an ENUM of the parts' names, l.enum) and constants, typed
// as typeOf says, and without l.lines the raw rowid of its first row (the
// parts' Rows before it: every part is read whole by read_parquet).
func partsTable(ctx context.Context, db *duck.DB, l *partLayout, scan *sources.PartScan, typeOf map[string]string) error {
	names := make([]string, len(scan.Parts))
	for i, p := range scan.Parts {
		names[i] = p.Name
	}
	enum, err := createFileEnum(ctx, db, l.table, names)
	if err != nil {
		return err
	}
	l.enum = enum
	type constant struct{ Name, Type, Values string }
	var consts []constant
	k := 0
	for j, f := range scan.Fields {
		if !scan.Constant[j] {
			continue
		}
		vals := make([]string, len(scan.Parts))
		for i, p := range scan.Parts {
			vals[i] = "NULL"
			if v := p.Values[k]; v != nil {
				vals[i] = duck.Literal(*v)
			}
		}
		consts = append(consts, constant{f.Name, typeOf[f.Name], "[" + strings.Join(vals, ", ") + "]"})
		k++
	}
	firstRows := ""
	if !l.lines {
		offs := make([]string, len(scan.Parts))
		var next int64
		for i, p := range scan.Parts {
			offs[i] = strconv.FormatInt(next, 10)
			next += p.Rows
		}
		firstRows = "[" + strings.Join(offs, ", ") + "]"
	}
	return db.ExecFile(ctx, statements(), queries.LoadPartsTable, struct {
		Table, Enum, PartType, FirstRows string
		Names                            []string
		Constants                        []constant
	}{l.parts, l.enum, l.partType, firstRows, names, consts})
}

// appendNative appends the parts [start, end) of scan, each read
// natively, to the raw table with one parts_read_parquet.sql, and returns
// the rows appended (checked against the parts' Rows); a column is cast
// when a part of the run casts it (a cast to the type it already has
// changes nothing).
func appendNative(ctx context.Context, db *duck.DB, l partLayout, scan *sources.PartScan, start, end int, typeOf map[string]string, casts [][]bool) (int64, error) {
	run := scan.Parts[start:end]
	paths := make([]string, len(run))
	var want int64
	for i, p := range run {
		paths[i] = p.File.Path
		want += p.Rows
	}
	type column struct {
		Name, Source, Type string
		Cast               bool
	}
	cols := make([]column, len(l.data))
	for j, name := range l.data {
		cols[j] = column{Name: name, Source: run[0].File.Columns[j], Type: typeOf[name]}
		for i := start; i < end; i++ {
			cols[j].Cast = cols[j].Cast || casts[i][j]
			if scan.Parts[i].File.Columns[j] != cols[j].Source {
				return 0, fmt.Errorf("load: field %s is column %s of %s, %s of %s", name, cols[j].Source, run[0].Name, scan.Parts[i].File.Columns[j], scan.Parts[i].Name)
			}
		}
	}
	n, err := db.ExecCountFile(ctx, statements(), queries.LoadPartsReadParquet, struct {
		Raw, PartType string
		First         int
		Lines         bool
		Paths         []string
		Columns       []column
	}{l.raw, l.partType, start, l.lines, paths, cols})
	if err != nil {
		return 0, err
	}
	if n != want {
		return 0, fmt.Errorf("load: read_parquet appended %d rows of files whose footers count %d", n, want)
	}
	return n, nil
}

// appendRecords appends the parts [start, end) of scan through the kind's
// records, with their __part, __row counting from firstRow — loaded into a
// table of their own, then appended to the raw table — and returns the
// rows appended.
func appendRecords(ctx context.Context, db *duck.DB, l partLayout, scan *sources.PartScan, start, end int, firstRow int64) (int64, error) {
	rr, err := scan.Records(ctx, start, end, firstRow, true)
	if err != nil {
		return 0, err
	}
	tmp := l.table + "__part"
	_, err = db.LoadArrow(ctx, tmp, rr)
	rr.Release()
	if err != nil {
		return 0, err
	}
	defer drop(ctx, db, tmp)
	return db.ExecCountFile(ctx, statements(), queries.LoadPartsInsertRecords, struct {
		Raw, From, Part, PartType string
		Columns                   []string
	}{l.raw, tmp, sources.PartColumn, l.partType, l.data})
}
