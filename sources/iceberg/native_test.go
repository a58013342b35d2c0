package iceberg_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	iceberg "github.com/apache/iceberg-go"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// arrowOnly hides the kind's fast path (sources.PartScanner): the loader
// reads it through Read's Arrow records, as before the fast path.
type arrowOnly struct{ sources.Source }

// loadBoth loads loc into table "native" through the kind's fast path and
// into "arrow" through its Arrow records, and fails unless both tables
// have the same columns of the same types and the same rows in the same
// order (every value as DuckDB's text of it, __row included). It returns
// the fast path's Input.
func loadBoth(t *testing.T, db *duck.DB, loc sources.Location) *sources.Input {
	t.Helper()
	ctx := context.Background()
	var in *sources.Input
	for _, name := range []string{"native", "arrow"} {
		src, err := sources.Open(loc)
		if err != nil {
			t.Fatal(err)
		}
		if name == "arrow" {
			src = arrowOnly{src}
		} else if _, ok := src.(sources.PartScanner); !ok {
			t.Fatal("the kind has no fast path (sources.PartScanner)")
		}
		got, err := load.Table(ctx, db, name, src)
		src.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "native" {
			in = got
		}
	}
	nc, err := db.Columns(ctx, "native")
	if err != nil {
		t.Fatal(err)
	}
	ac, err := db.Columns(ctx, "arrow")
	if err != nil {
		t.Fatal(err)
	}
	types := func(cols []duck.Column, table string) string {
		var out []string
		for _, c := range cols {
			// __file is an ENUM of each table's own file names.
			out = append(out, c.Name+" "+strings.TrimPrefix(c.Type, table))
		}
		return strings.Join(out, ", ")
	}
	if a, b := types(nc, "native"), types(ac, "arrow"); a != b {
		t.Errorf("types differ:\nfast path %s\nArrow     %s", a, b)
	}
	dump := func(table string) []string {
		_, rows, err := db.Strings(ctx, "SELECT * FROM "+table+" ORDER BY __row")
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(rows))
		for i, r := range rows {
			vals := make([]string, len(r))
			for j, v := range r {
				vals[j] = "NULL"
				if v != nil {
					vals[j] = fmt.Sprintf("%q", *v)
				}
			}
			out[i] = strings.Join(vals, " ")
		}
		return out
	}
	a, b := dump("native"), dump("arrow")
	if len(a) != len(b) {
		t.Errorf("%d rows by the fast path, %d through the Arrow records", len(a), len(b))
	}
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			t.Errorf("row %d:\nfast path %s\nArrow     %s", i, a[i], b[i])
			break
		}
	}
	return in
}

// dropInput drops a loaded input: a table, or the loader's view over its
// raw rows (with them).
func dropInput(ctx context.Context, db *duck.DB, name string) error {
	if view, err := db.IsView(ctx, name); err != nil || !view {
		return db.DropTable(ctx, name)
	}
	return db.DropView(ctx, name)
}

// readBy is how many data files DuckDB read itself and the reasons of the
// others, by file name.
func readBy(in *sources.Input) (int, map[string]string) {
	n, _ := in.Details["read_by_duckdb"].(int)
	why := map[string]string{}
	others, _ := in.Details["read_by_iceberg_go"].([]any)
	for _, o := range others {
		m := o.(map[string]any)
		why[m["path"].(string)] = m["why"].(string)
	}
	return n, why
}

// typesSchema holds a column of every type the kind maps that DuckDB's
// read_parquet reads as the kind's records hold it.
func typesSchema() *iceberg.Schema {
	return iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "b", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 2, Name: "i", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 3, Name: "l", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 4, Name: "d", Type: iceberg.DecimalTypeOf(38, 10)},
		iceberg.NestedField{ID: 5, Name: "d9", Type: iceberg.DecimalTypeOf(9, 2)},
		iceberg.NestedField{ID: 6, Name: "day", Type: iceberg.PrimitiveTypes.Date},
		iceberg.NestedField{ID: 7, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp},
		iceberg.NestedField{ID: 8, Name: "tstz", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 9, Name: "ts_ns", Type: iceberg.PrimitiveTypes.TimestampNs},
		iceberg.NestedField{ID: 10, Name: "s", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 11, Name: "u", Type: iceberg.PrimitiveTypes.UUID},
		iceberg.NestedField{ID: 12, Name: "bin", Type: iceberg.PrimitiveTypes.Binary},
		iceberg.NestedField{ID: 13, Name: "fx", Type: iceberg.FixedTypeOf(3)},
		iceberg.NestedField{ID: 14, Name: "t", Type: iceberg.PrimitiveTypes.Time},
		iceberg.NestedField{ID: 15, Name: "f", Type: iceberg.PrimitiveTypes.Float32},
		iceberg.NestedField{ID: 16, Name: "st", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 17, Name: "x", Type: iceberg.PrimitiveTypes.Int64},
			{ID: 18, Name: "y", Type: iceberg.PrimitiveTypes.String}}}},
		iceberg.NestedField{ID: 19, Name: "li", Type: &iceberg.ListType{ElementID: 20, Element: iceberg.DecimalTypeOf(9, 2)}},
		iceberg.NestedField{ID: 21, Name: "m", Type: &iceberg.MapType{KeyID: 22, KeyType: iceberg.PrimitiveTypes.String,
			ValueID: 23, ValueType: iceberg.PrimitiveTypes.Int64}},
	)
}

func typesRows(from, n int) []map[string]any {
	var rows []map[string]any
	for k := from; k < from+n; k++ {
		r := map[string]any{
			"b": k%2 == 0, "i": k, "l": 9007199254740993 + k, "d": fmt.Sprintf("1234567890123456789012345678.%010d", k), "d9": fmt.Sprintf("-%d.05", k),
			"day": "2026-11-27", "ts": fmt.Sprintf("2026-11-27T10:00:%02d.123456", k%60), "tstz": fmt.Sprintf("2026-11-27T10:00:%02d.123456Z", k%60),
			"ts_ns": fmt.Sprintf("2026-11-27T10:00:00.12345678%d", k%10),
			"s":     fmt.Sprintf("héllo %d ", k), "u": fmt.Sprintf("0e5c4e1e-6a4b-4bc8-9f57-2f7a2c9b1d%02x", k%256), "bin": "AAEC", "fx": "AQID",
			"t": "10:00:00.5", "f": 1.5, "st": map[string]any{"x": k, "y": "a"}, "li": []any{"1.50", "-0.01"},
			"m": []any{map[string]any{"key": "k", "value": k}},
		}
		if k%3 == 1 {
			// NULLs in every optional column.
			for _, c := range []string{"b", "i", "d", "d9", "day", "ts", "tstz", "ts_ns", "s", "u", "bin", "fx", "t", "f", "st", "li", "m"} {
				r[c] = nil
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// The fast path reads a table of every mapped type — decimals, timestamp
// against timestamptz, timestamp_ns, uuid, binary and fixed, nested
// struct, list and map, NULLs — with DuckDB's read_parquet, to the same
// columns, types and rows as the Arrow records; and a data file added
// twice twice, each copy with its own snapshot.
func TestFastPathTypes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "types", typesSchema(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), records(t, tb, typesRows(0, 7)...)); err != nil {
		t.Fatal(err)
	}
	_, files, err := tb.Append(ctx, icebergtest.Flink("job", "op", 2), records(t, tb, typesRows(7, 5)...))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.AddFiles(ctx, nil, files...); err != nil {
		t.Fatal(err)
	}
	db := sourcetest.DB(t)
	in := loadBoth(t, db, sources.Location{Role: "sink", URI: "iceberg:wh/db/types", BaseDir: dir})
	if n, why := readBy(in); n != 3 || len(why) != 0 {
		t.Errorf("read_parquet read %d data files, iceberg-go %v; want 3 and none", n, why)
	}
	types := map[string]string{}
	for _, c := range in.Columns {
		types[c.Name] = c.Type
	}
	for col, want := range map[string]string{
		"d": "DECIMAL(38,10)", "d9": "DECIMAL(9,2)", "ts": "TIMESTAMP", "tstz": "TIMESTAMP WITH TIME ZONE", "ts_ns": "TIMESTAMP_NS",
		"u": "VARCHAR", "bin": "BLOB", "fx": "BLOB", "t": "TIME", "st": "STRUCT(x BIGINT, y VARCHAR)", "li": "DECIMAL(9,2)[]",
		"m": "MAP(VARCHAR, BIGINT)",
	} {
		if types[col] != want {
			t.Errorf("column %s loads as %s, want %s", col, types[col], want)
		}
	}
}

// A timestamptz_ns column (format v3), which read_parquet would read as a
// microsecond TIMESTAMP WITH TIME ZONE, makes every data file read by
// iceberg-go, with the reason in the evidence; the rows are the same.
func TestFastPathRefusesNanosecondsWithZone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 2, Name: "tstz_ns", Type: iceberg.PrimitiveTypes.TimestampTzNs})
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "t", schema, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, nil, records(t, tb, map[string]any{"id": "a", "tstz_ns": "2026-11-27T10:00:00.123456789Z"})); err != nil {
		t.Fatal(err)
	}
	db := sourcetest.DB(t)
	in := loadBoth(t, db, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir})
	n, why := readBy(in)
	if n != 0 || len(why) != 1 {
		t.Fatalf("read_parquet read %d data files, iceberg-go %v", n, why)
	}
	for _, w := range why {
		if !strings.Contains(w, "column tstz_ns as TIMESTAMP WITH TIME ZONE, the records hold TIMESTAMP_NS") {
			t.Errorf("why: %s", w)
		}
	}
	_, rows, err := db.Strings(ctx, "SELECT CAST(tstz_ns AS VARCHAR) FROM native")
	if err != nil || len(rows) != 1 || *rows[0][0] != "2026-11-27 10:00:00.123456789" {
		t.Errorf("tstz_ns: %v %v", rows, err)
	}
}

// Data files to which deletes apply (equality, position), and those written
// before a column was renamed or added, are read by iceberg-go, each with
// its reason; the others by read_parquet; together, in commit order, the
// same rows as the Arrow records, __row counting on across both.
func TestFastPathMixed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tb := newTable(t, dir)
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 1), records(t, tb, rowsOf("p1", "1.00", "p2", "2.00", "p3", "3.00")...)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 2), records(t, tb, rowsOf("p4", "4.00", "p5", "5.00")...)); err != nil {
		t.Fatal(err)
	}
	keys := records(t, tb, rowsOf("p2", "0")...)
	if _, err := tb.Upsert(ctx, icebergtest.Flink("job", "op", 3), []int{tb.MustID("id")}, keys, records(t, tb, rowsOf("p2", "20.00", "p6", "6.00")...)); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.DeleteWhere(ctx, icebergtest.Flink("job", "op", 4), "id", "p6"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 5), records(t, tb, rowsOf("p7", "7.00")...)); err != nil {
		t.Fatal(err)
	}
	db := sourcetest.DB(t)
	in := loadBoth(t, db, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir})
	n, why := readBy(in)
	// p1–p3 and p4–p5 (the equality delete applies to both), p2/p6 (a
	// position delete): by iceberg-go; p7: by read_parquet.
	if n != 1 || len(why) != 3 {
		t.Fatalf("read_parquet read %d data files, iceberg-go %v", n, why)
	}
	for f, w := range why {
		if !strings.Contains(w, "delete file(s) apply to it") {
			t.Errorf("%s: %s", f, w)
		}
	}
	_, rows, err := db.Strings(ctx, "SELECT string_agg(id || '=' || amount || '#' || __row || '@' || __checkpoint, ' ' ORDER BY __row) FROM native")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *rows[0][0], "p1=1.00#0@1 p3=3.00#1@1 p4=4.00#2@2 p5=5.00#3@2 p2=20.00#4@3 p7=7.00#5@5"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}

	// A column renamed and one added: the older files are read by
	// iceberg-go (by field id), the newer by read_parquet.
	if err := tb.RenameColumn(ctx, "amount", "value"); err != nil {
		t.Fatal(err)
	}
	if err := tb.AddColumn(ctx, "note", iceberg.PrimitiveTypes.String); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", 6), records(t, tb, map[string]any{"id": "p8", "value": "8.00", "note": "n"})); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"native", "arrow"} {
		if err := dropInput(ctx, db, table); err != nil {
			t.Fatal(err)
		}
	}
	in = loadBoth(t, db, sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir})
	n, why = readBy(in)
	renamed := 0
	for _, w := range why {
		if w == "column value: amount in the file (renamed since it was written)" {
			renamed++
		}
	}
	if n != 1 || len(why) != 4 || renamed != 1 {
		t.Errorf("after the schema change: read_parquet read %d data files, iceberg-go %v", n, why)
	}
}
