// Package load puts one source into the engine as a table: it turns a
// sources.Source into a DuckDB table of the layout every check reads — the
// input's columns, then __file, __line and __row (see package sources) — and
// completes the source's description of what was read (Input.Rows and
// Input.Columns).
//
// A source is read one of two ways, chosen here:
//
//   - natively, when it implements sources.Scanner and DuckDB reads its
//     Scan (CSV with read_csv, nothing sniffed; Parquet with read_parquet;
//     plain, gzip or zstd files): Parquet in one pass with its provenance
//     columns (with Options.View, one schema: a view over the files, read
//     by every statement that reads it), except an input of one file
//     without partitions that no rename, format or declared type rewrites
//     (overRaw), which is read as a CSV input of one file is: into a raw
//     table, the input's table a view over it adding the provenance
//     columns (duck.DB.ViewOver, whose in-place conversions alter the raw
//     table; a CSV input's renames, formats and declared types copy it
//     first); other CSV inputs into a raw table that gets them in a second
//     copy; with a
//     CSV's __line moved to the physical line a record starts on where
//     blank lines or multi-line fields make the two differ; __file is an
//     ENUM of the input's file names (sorted, so it sorts as its text),
//     one byte a row instead of the path's text; a CSV file read_csv
//     refuses is read the second way, so the Go reader's answer (its rows,
//     or an error naming file and line) stands for both;
//   - for a sources.PartScanner (an Iceberg table), part by part into one
//     table made from the records' Arrow schema: each Parquet data file
//     DuckDB reads as the kind's records hold it (its columns read as the
//     table's types, checked from its footer first) with read_parquet, the
//     others through the kind's records (readParts);
//   - otherwise from the source's Arrow records (Source.Read), through
//     DuckDB's Arrow scan (duck.DB.LoadArrow).
//
// Then every declared type (the types: option, Input.Declared) is applied
// with a check of each value first, so a value that does not convert, that
// the cast would change (a fraction under an integer type or beyond a
// DECIMAL's scale, a number not written as a plain decimal, a date with a
// time of day, digits beyond a timestamp's precision, a typed value that
// reads back as another), or a wall-clock time a DST change of the input's
// zone skips or repeats, is an error naming its file, line, column and
// value (BadValue) rather than a NULL, a rounded number or a guessed
// instant. A declared type DuckDB does not have is a spec error
// (ResolveType, CheckDeclared: found before any row is read).
//
// Every statement is a file of queries/load, parsed by package sqlfile with
// the strict header "-- statement:" (the file's id) and "-- description:".
package load

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// statements are the files of queries/load, read once (each template
// parsed when first rendered); a file that does not parse, or whose
// statement: is not its id, is a broken build.
var statements = sync.OnceValue(func() *queries.Set {
	f := sqlfile.Funcs()
	f["haszone"] = hasZone
	f["hasprefix"] = strings.HasPrefix
	f["inexacttext"] = inexactText
	f["walldst"] = wallDST
	f["walldstin"] = func(wall, zoneSQL, check string) (string, error) { return wallDSTIn(wall, "", zoneSQL, check) }
	return queries.MustSet("load", f)
})

// hasZoneRule is queries/rules/has_zone.sql, the one rule of whether a
// timestamp text names its zone, shared with the checks.
var hasZoneRule = sync.OnceValue(func() *sqlfile.File {
	f, err := sqlfile.ReadFile(queries.FS, "rules/has_zone.sql", queries.Keys, sqlfile.Funcs())
	if err != nil {
		panic(err)
	}
	return f
})

// inexactRule is queries/rules/inexact_text.sql, the one rule of whether
// a text is read exactly as a number, date or timestamp, shared with the
// checks.
var inexactRule = sync.OnceValue(func() *sqlfile.File {
	f, err := sqlfile.ReadFile(queries.FS, "rules/inexact_text.sql", queries.Keys, sqlfile.Funcs())
	if err != nil {
		panic(err)
	}
	return f
})

// inexactText renders the inexact_text rule for the text expression text
// read as class (number, date, timestamp) of scale or fraction digits.
func inexactText(text, class string, scale, digits int) (string, error) {
	out, err := inexactRule().Render(struct {
		Text, Class   string
		Scale, Digits int
	}{text, class, scale, digits})
	if err != nil {
		return "", err
	}
	return strings.TrimRight(sqlfile.Body(out), "\n"), nil
}

// wallDSTRule is queries/rules/wall_dst.sql, the one rule of a wall-clock
// time that a zone's DST change skips or repeats, shared with the checks.
var wallDSTRule = sync.OnceValue(func() *sqlfile.File {
	f, err := sqlfile.ReadFile(queries.FS, "rules/wall_dst.sql", queries.Keys, sqlfile.Funcs())
	if err != nil {
		panic(err)
	}
	return f
})

// wallDST renders the wall_dst rule for the TIMESTAMP expression wall read
// in zone, check "gap" or "repeat".
func wallDST(wall, zone, check string) (string, error) { return wallDSTIn(wall, zone, "", check) }

// wallDSTIn is wallDST with the zone the SQL expression zoneSQL when it is
// not "" (a zone named in each value).
func wallDSTIn(wall, zone, zoneSQL, check string) (string, error) {
	out, err := wallDSTRule().Render(struct{ Wall, Zone, ZoneSQL, Check string }{wall, zone, zoneSQL, check})
	if err != nil {
		return "", err
	}
	return strings.TrimRight(sqlfile.Body(out), "\n"), nil
}

// hasZone renders the has_zone rule for the text expression text.
func hasZone(text string) (string, error) {
	out, err := hasZoneRule().Render(struct{ Text string }{text})
	if err != nil {
		return "", err
	}
	return strings.TrimRight(sqlfile.Body(out), "\n"), nil
}

type tableData struct{ Table string }

// drop removes table (or the view that stands for it: an input read where
// it lies, or a view over raw rows with the raw table), even once ctx is
// cancelled.
func drop(ctx context.Context, db *duck.DB, table string) {
	ctx = context.WithoutCancel(ctx)
	if view, err := db.IsView(ctx, table); err == nil && view {
		db.DropView(ctx, table)
		return
	}
	db.ExecFile(ctx, statements(), queries.LoadDropTable, tableData{table})
}

// Table reads src into a new table named table of db and returns the
// source's Input with Rows and Columns (the table's columns without the
// provenance ones, with their DuckDB types) set.
//
// Errors are the source's (sources.ErrInvalidLocation, fileset.ErrNoFiles,
// a value or row that cannot be read, naming file and line), a DuckDB
// reader's (shortened to its first lines: file, line, what was found), a
// declared type a value does not convert to (naming file, line, column and
// value), or — once ctx is cancelled — one for which errors.Is(err,
// context.Canceled) holds. On error no table is left behind.
func Table(ctx context.Context, db *duck.DB, table string, src sources.Source) (*sources.Input, error) {
	return TableWith(ctx, db, table, src, Options{})
}

// TableWith is Table with the spec's Options: once the records are in the
// table, its columns are renamed (Options.Rename; a column the input lacks,
// or a new name it has, is a spec.ErrInvalid), the input's value
// formats are applied (sources.ValueFormats: a value that does not match is
// an error naming file, line, column, value and format), then the declared
// types, which name the control's columns, with zone-less timestamps read
// in Options.TimeZone, which Input.TimeZone then records ("UTC" when none
// is given). Input.Columns carry the control's names, each renamed one with
// its name in the input (Column.RenamedFrom).
func TableWith(ctx context.Context, db *duck.DB, table string, src sources.Source, opt Options) (*sources.Input, error) {
	in, err := loadTable(ctx, db, table, src, opt)
	if err != nil {
		drop(ctx, db, table)
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		return nil, err
	}
	return in, nil
}

// loadTable reads src into table — with DuckDB's own reader where it
// reads the input (readScan), else through the source's Read
// (readRecords) — and then makes it the control's table (shapeTable).
func loadTable(ctx context.Context, db *duck.DB, table string, src sources.Source, opt Options) (*sources.Input, error) {
	var in *sources.Input
	if sc, ok := src.(sources.Scanner); ok {
		var err error
		if in, err = readScan(ctx, db, table, sc, opt); err != nil {
			return nil, err
		}
	} else if ps, ok := src.(sources.PartScanner); ok {
		var err error
		if in, err = readParts(ctx, db, table, ps); err != nil {
			return nil, err
		}
	}
	if in == nil {
		var err error
		if in, err = readRecords(ctx, db, table, src); err != nil {
			return nil, err
		}
	}
	// A table's changes: keys inserted twice are findings of its commit
	// history (over the input's own column names, before any rename).
	if err := changeFindings(ctx, db, table, in); err != nil {
		return nil, err
	}
	// Records the source listed as bad but an engine read all the same
	// (bad_records: report) count as not read.
	if err := dropReadBadRecords(ctx, db, table, in); err != nil {
		return nil, err
	}
	if err := shapeTable(ctx, db, table, in, opt); err != nil {
		return nil, err
	}
	return in, nil
}

// readScan reads the files of sc into table with DuckDB's own reader
// when it reads them (native) and returns the input; nil, and no table,
// when it does not, or when read_csv refuses the text (the source's Read
// then reads it, and reads it or refuses it naming file and physical
// line). A Parquet input of a control that uses only some of its columns
// (Options.Columns) reads only those (project).
func readScan(ctx context.Context, db *duck.DB, table string, sc sources.Scanner, opt Options) (*sources.Input, error) {
	sin, scan, err := sc.Scan(ctx)
	if err != nil {
		return nil, err
	}
	var notRead []sources.Column
	if opt.Columns != nil && opt.Rename == nil && scan.Format == sources.FormatParquet {
		scan, notRead = project(scan, opt.Columns, sin.Declared)
	}
	// A scan of no file (an input whose every file is uncommitted:
	// no record, its columns known) is read as empty records.
	if !native(scan) || len(scan.Files) == 0 || shadowsRowID(scan) {
		return nil, nil
	}
	rw := rewrites(opt, sin)
	inPlace, err := loadScan(ctx, db, table, sin.Location, scan, opt.View && !rw, rw)
	var re *readerError
	switch {
	case err != nil && scan.Format == sources.FormatCSV && errors.As(err, &re) && ctx.Err() == nil:
		// read_csv refused the text (too many fields, mixed line
		// endings, …) with its own message and numbering: the
		// source's Read, the reference reading, reads it instead,
		// and reads it or refuses it naming file and physical line.
		drop(ctx, db, table)
		return nil, nil
	case err != nil:
		return nil, err
	}
	if err := sameNames(ctx, db, table, sin.Location, scanNames(scan)); err != nil {
		return nil, err
	}
	in := sin
	if inPlace {
		in.ReadInPlace = true
		in.Notes = append(in.Notes, fmt.Sprintf("the %s was read where it lies, not copied: every statement that reads it reads its Parquet files, checked unchanged (size, modification time, file identity) once the checks had run", in.Role))
	}
	if len(notRead) > 0 {
		if err := notReadTypes(ctx, db, scan, notRead); err != nil {
			return nil, err
		}
		in.NotRead = notRead
		names := make([]string, len(notRead))
		for i, c := range notRead {
			names[i] = c.Name
		}
		in.Notes = append(in.Notes, fmt.Sprintf("the %s's columns %s were not read: no check of this control uses them (summary.json inputs[].columns_not_read)", in.Role, strings.Join(names, ", ")))
	}
	return in, nil
}

// readRecords reads the records of src's Read (Arrow batches) into table,
// its __file column an ENUM where that is faster (arrowFileEnum).
func readRecords(ctx context.Context, db *duck.DB, table string, src sources.Source) (*sources.Input, error) {
	rin, records, err := src.Read(ctx)
	if err != nil {
		return nil, err
	}
	var want []string
	for _, f := range records.Schema().Fields() {
		want = append(want, f.Name)
	}
	_, err = db.LoadArrow(ctx, table, records)
	records.Release()
	if err != nil {
		return nil, err
	}
	if err := sameNames(ctx, db, table, rin.Location, want); err != nil {
		return nil, err
	}
	if err := arrowFileEnum(ctx, db, table); err != nil {
		return nil, err
	}
	if l, ok := src.(sources.BadRecordLister); ok {
		// Read skipped them (bad_records: report) as it read the records.
		rin.BadRecords = append(rin.BadRecords, l.BadRecords()...)
	}
	return rin, nil
}

// shapeTable makes the table read for in the control's table: a view
// that the load rewrites becomes a table, its columns are renamed, the
// value formats and declared types applied; then in's TimeZone, Rows and
// Columns are set.
func shapeTable(ctx context.Context, db *duck.DB, table string, in *sources.Input, opt Options) error {
	if in.LocationForm == sources.LocationOffset {
		db.SetLocationSeparator(table, "@")
	}
	if in.ReportsBadRecords {
		db.SetReportsBadRecords(table)
	}
	if rewrites(opt, in) {
		// A view (over the raw rows, file_provenance.sql) becomes a table.
		if err := db.Materialize(ctx, table); err != nil {
			return err
		}
	}
	renamed, err := renameColumns(ctx, db, table, in.Role, opt.Rename, false)
	if err != nil {
		return err
	}
	if err := applyFormats(ctx, db, table, in.Role, in.Formats, in.Declared, opt.Measures, refusalOf(in)); err != nil {
		return err
	}
	if err := applyDeclared(ctx, db, table, in.Role, in.Declared, in.Formats, opt.Rename, opt.TimeZone, refusalOf(in)); err != nil {
		return err
	}
	in.TimeZone = opt.TimeZone
	if in.TimeZone == "" {
		in.TimeZone = "UTC"
	}
	rows, err := db.CountFile(ctx, statements(), queries.LoadCountRows, tableData{table})
	if err != nil {
		return err
	}
	cols, err := UserColumns(ctx, db, table)
	if err != nil {
		return err
	}
	in.Rows = rows
	in.Columns = make([]sources.Column, len(cols))
	for i, c := range cols {
		in.Columns[i] = sources.Column{Name: c.Name, Type: c.Type, RenamedFrom: renamed[c.Name]}
	}
	return nil
}

// rewrites reports whether the load rewrites in's table after reading it:
// renames, value formats and declared types change it in place, and
// records the source listed as bad are removed from it, so it cannot stay
// a view.
func rewrites(opt Options, in *sources.Input) bool {
	if opt.Rename != nil || !in.Formats.IsZero() || len(in.Declared) > 0 {
		return true
	}
	for _, b := range in.BadRecords {
		if b.File != "" {
			return true // removed from the table (dropReadBadRecords)
		}
	}
	return false
}

// notReadTypes fills in the type of each column of cols that has none (one
// every file declares alike, which the scan leaves unnamed) as DuckDB reads
// it from the first file (parquet_types.sql).
func notReadTypes(ctx context.Context, db *duck.DB, scan *sources.Scan, cols []sources.Column) error {
	var names []string
	for _, c := range cols {
		if c.Type == "" {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 || len(scan.Files) == 0 {
		return nil
	}
	_, rows, err := db.StringsFile(ctx, statements(), queries.LoadParquetTypes, struct {
		File    string
		Columns []string
	}{scan.Files[0].Path, names})
	if err != nil {
		return err
	}
	types := map[string]string{}
	for _, r := range rows {
		if r[0] != nil && r[1] != nil {
			types[*r[0]] = *r[1]
		}
	}
	for i := range cols {
		if cols[i].Type == "" {
			cols[i].Type = types[cols[i].Name]
		}
	}
	return nil
}

// project returns a copy of the Parquet scan that reads only the columns
// named in keep or declared (a declared type is applied to its column
// after the load), in the input's order, and the columns it leaves out
// with their types. The files' own schemas are kept: they still decide
// which files read together and which columns are cast.
func project(scan *sources.Scan, keep []string, declared []sources.Column) (*sources.Scan, []sources.Column) {
	want := map[string]bool{}
	for _, k := range keep {
		want[k] = true
	}
	for _, d := range declared {
		want[d.Name] = true
	}
	out := *scan
	out.Types = nil
	var left []sources.Column
	for _, c := range scan.Types {
		if want[c.Name] {
			out.Types = append(out.Types, c)
			continue
		}
		left = append(left, c) // a type of "": every file declares it alike (notReadTypes)
	}
	return &out, left
}

// shadowsRowID reports whether a column of scan is named rowid (in any
// case): in DuckDB that name then means the column, not the row id the
// two-pass provenance numbers the rows by (file_provenance.sql), so an
// integer column of that name would number them instead. Such an input is
// read by the source's own reader, which numbers its rows itself.
func shadowsRowID(scan *sources.Scan) bool {
	for _, n := range scanNames(scan) {
		if strings.EqualFold(n, "rowid") {
			return true
		}
	}
	return false
}

// scanNames are the user columns a native scan gives, in order: the CSV
// header's (or Parquet's unified) columns, then the partition columns; nil
// when the scan does not say (nothing is then compared).
func scanNames(scan *sources.Scan) []string {
	var out []string
	switch {
	case scan.Columns != nil:
		out = append(out, scan.Columns...)
	case scan.Types != nil:
		for _, c := range scan.Types {
			out = append(out, c.Name)
		}
	default:
		return nil
	}
	return append(out, scan.Partitions...)
}

// sameNames checks that the loaded table's user columns are exactly want
// (the input's, provenance columns ignored), in order. DuckDB renames a
// column whose name another one already has, ignoring case, to "<name>_1"
// without a word; the sources refuse such inputs (sources.CaseClash), and
// this is the guard that no other rename ever passes silently. A difference
// is an ErrInvalidLocation naming both lists. want == nil checks nothing.
func sameNames(ctx context.Context, db *duck.DB, table, location string, want []string) error {
	if want == nil {
		return nil
	}
	cols, err := UserColumns(ctx, db, table)
	if err != nil {
		return err
	}
	var wantUser, got []string
	for _, w := range want {
		switch w {
		case sources.FileColumn, sources.LineColumn, sources.RowColumn:
		default:
			wantUser = append(wantUser, w)
		}
	}
	for _, c := range cols {
		got = append(got, c.Name)
	}
	same := len(got) == len(wantUser)
	for i := 0; same && i < len(got); i++ {
		same = got[i] == wantUser[i]
	}
	if !same {
		return fmt.Errorf("%w: %s: the engine loaded the columns %q, not the input's %q (two names DuckDB does not tell apart?); nothing is compared under a name the input does not have", sources.ErrInvalidLocation, location, got, wantUser)
	}
	return nil
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
		case sources.FileColumn, sources.LineColumn, sources.RowColumn:
		default:
			out = append(out, c)
		}
	}
	return out, nil
}

// BadValue locates the first row of table, in read order, where cond holds
// and returns `file:line: column C: value "v"` (`topic[partition]@offset: …`
// for a Kafka topic) for an error message (NULL
// shown as NULL). cond is a DuckDB boolean expression over the table's
// columns, rendered by the caller from its own SQL file. ok is false when
// no row matches.
func BadValue(ctx context.Context, db *duck.DB, table, column, cond string) (msg string, ok bool, err error) {
	msg, _, ok, err = BadValueOf(ctx, db, table, column, cond)
	return msg, ok, err
}

// BadValueOf is BadValue that also returns the value itself (nil for
// NULL), for a hint that looks at it (CommaHint).
func BadValueOf(ctx context.Context, db *duck.DB, table, column, cond string) (msg string, value *string, ok bool, err error) {
	q, err := statements().SQL(queries.LoadBadValue, struct {
		Table, Column, Cond string
		Limit               int
	}{table, column, cond, 1})
	if err != nil {
		return "", nil, false, err
	}
	return firstBad(ctx, db, table, q, column)
}

// firstBad runs a statement returning (__file, __line, value) of at most one
// row of table and formats it as BadValue does, the location as the table's
// rows read (duck.DB.LocationSeparator: topic[partition]@offset for Kafka).
// value is the value itself (nil for NULL), for the hints that look at it.
func firstBad(ctx context.Context, db *duck.DB, table, q, column string) (msg string, value *string, ok bool, err error) {
	_, rows, err := db.Strings(ctx, q)
	if err != nil || len(rows) == 0 {
		return "", nil, false, err
	}
	r := rows[0]
	val := "NULL"
	if r[2] != nil {
		val = strconv.Quote(*r[2])
	}
	return fmt.Sprintf("%s%s%s: column %s: value %s", deref(r[0]), db.LocationSeparator(table), deref(r[1]), column, val), r[2], true, nil
}

// Uncommitted loads the records of one uncommitted file (rr, from
// sources.UncommittedReader) into the side table of a sink's uncommitted
// rows, keeping only the id columns ids (with the types the sink's ids are
// compared as) and the provenance, and returns its row count. declared are
// the sink's declared types (the types: option), applied to the columns the
// file has, each value checked, as for the sink itself (zone-less timestamps
// read in zone, as Options.TimeZone). With no ids the rows
// are only counted. The table is created when it does not exist.
//
// Errors: the reader's (naming file and line), a file without one of the id
// columns, or an id value that does not convert to the sink's type (naming
// file, line, column and value). rr is released.
func Uncommitted(ctx context.Context, db *duck.DB, table string, ids []duck.Column, declared []sources.Column, formats sources.ValueFormats, opt Options, rr array.RecordReader) (int64, error) {
	tmp := table + "__file"
	_, err := db.LoadArrow(ctx, tmp, rr)
	rr.Release()
	if err != nil {
		return 0, err
	}
	defer drop(ctx, db, tmp)
	if _, err := renameColumns(ctx, db, tmp, "sink", opt.Rename, true); err != nil {
		return 0, err
	}
	cols, err := db.Columns(ctx, tmp)
	if err != nil {
		return 0, err
	}
	have := map[string]bool{}
	for _, c := range cols {
		have[c.Name] = true
	}
	var apply []sources.Column
	for _, d := range declared {
		if have[d.Name] {
			apply = append(apply, d)
		}
	}
	// The records of an uncommitted file are only counted and their ids
	// listed: a value that cannot be read stops the run whatever
	// bad_records says.
	if err := applyFormats(ctx, db, tmp, "sink", formats, apply, opt.Measures, refusal{}); err != nil {
		return 0, err
	}
	if err := applyDeclared(ctx, db, tmp, "sink", apply, formats, opt.Rename, opt.TimeZone, refusal{}); err != nil {
		return 0, err
	}
	n, err := db.CountFile(ctx, statements(), queries.LoadCountRows, tableData{tmp})
	if err != nil || len(ids) == 0 {
		return n, err
	}
	if cols, err = db.Columns(ctx, tmp); err != nil { // as declared
		return 0, err
	}
	typeOf := map[string]string{}
	for _, c := range cols {
		typeOf[c.Name] = c.Type
	}
	for _, id := range ids {
		if !have[id.Name] {
			return 0, fmt.Errorf("it has no column %s (an id column of the sink)", id.Name)
		}
		// Only whether each id converts is checked here (Check convert), not
		// its scale.
		data, err := conversion(tmp, id.Name, typeOf[id.Name], id.Type, id.Type, opt.TimeZone)
		if err != nil {
			return 0, err
		}
		err = refusal{}.declared(ctx, db, data, func(row badRow) error {
			return fmt.Errorf("%s does not convert to %s, the type the sink's ids are compared as", row.msg, id.Type)
		})
		if err != nil {
			return 0, err
		}
	}
	data := struct {
		Table, From string
		Columns     []duck.Column
	}{table, tmp, ids}
	if err := db.ExecFile(ctx, statements(), queries.LoadUncommittedTable, data); err != nil {
		return 0, err
	}
	if err := db.ExecFile(ctx, statements(), queries.LoadUncommittedInsert, data); err != nil {
		return 0, err
	}
	return n, nil
}

// UncommittedTable creates the (empty) side table of a sink's uncommitted
// rows with the id columns ids, when it does not exist.
func UncommittedTable(ctx context.Context, db *duck.DB, table string, ids []duck.Column) error {
	return db.ExecFile(ctx, statements(), queries.LoadUncommittedTable, struct {
		Table   string
		Columns []duck.Column
	}{table, ids})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// maxFileEnum is the most distinct __file values a table loaded from Arrow
// gets an ENUM for; past it (a Go reader of that many files) __file stays
// text.
const maxFileEnum = 10000

// arrowFileEnum makes the text __file column of a table a Go reader loaded
// (Arrow batches) an ENUM of its distinct values, sorted byte for byte, as
// the native file readers' tables have it (file_enum.sql): the checks'
// joins carry __file on every row, and a 60-character database label on 10
// M rows made them more than twice as slow (file_enum_column.sql). A table
// with no row, a NULL __file or more than maxFileEnum files keeps the text.
func arrowFileEnum(ctx context.Context, db *duck.DB, table string) error {
	_, rows, err := db.StringsFile(ctx, statements(), queries.LoadFileNames, struct {
		Table string
		Limit int
	}{table, maxFileEnum})
	if err != nil {
		return err
	}
	if len(rows) == 0 || len(rows) > maxFileEnum {
		return nil
	}
	values := make([]string, len(rows))
	for i, r := range rows {
		if r[0] == nil {
			return nil
		}
		values[i] = *r[0]
	}
	name, err := createFileEnum(ctx, db, table, values)
	if err != nil {
		return err
	}
	return db.ExecFile(ctx, statements(), queries.LoadFileEnumColumn, struct{ Table, Enum string }{table, name})
}
