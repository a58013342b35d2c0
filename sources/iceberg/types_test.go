package iceberg_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	iceberg "github.com/apache/iceberg-go"

	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	ice "github.com/reconcile-dev/reconcile/sources/iceberg"
	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// TestTypes loads a format v3 table of every mapped type and checks the
// DuckDB type and the value of each column, to the nanosecond.
func TestTypes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "b", Type: iceberg.PrimitiveTypes.Bool},
		iceberg.NestedField{ID: 2, Name: "i", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 3, Name: "l", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 4, Name: "d", Type: iceberg.DecimalTypeOf(38, 10)},
		iceberg.NestedField{ID: 5, Name: "day", Type: iceberg.PrimitiveTypes.Date},
		iceberg.NestedField{ID: 6, Name: "ts", Type: iceberg.PrimitiveTypes.Timestamp},
		iceberg.NestedField{ID: 7, Name: "tstz", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 8, Name: "ts_ns", Type: iceberg.PrimitiveTypes.TimestampNs},
		iceberg.NestedField{ID: 9, Name: "tstz_ns", Type: iceberg.PrimitiveTypes.TimestampTzNs},
		iceberg.NestedField{ID: 10, Name: "s", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 11, Name: "u", Type: iceberg.PrimitiveTypes.UUID},
		iceberg.NestedField{ID: 12, Name: "bin", Type: iceberg.PrimitiveTypes.Binary},
		iceberg.NestedField{ID: 13, Name: "t", Type: iceberg.PrimitiveTypes.Time},
		iceberg.NestedField{ID: 14, Name: "st", Type: &iceberg.StructType{FieldList: []iceberg.NestedField{
			{ID: 15, Name: "x", Type: iceberg.PrimitiveTypes.Int64},
			{ID: 16, Name: "y", Type: iceberg.PrimitiveTypes.String}}}},
		iceberg.NestedField{ID: 17, Name: "li", Type: &iceberg.ListType{ElementID: 18, Element: iceberg.DecimalTypeOf(9, 2)}},
	)
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "types", schema, 3)
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]any{
		"b": true, "i": 7, "l": 9007199254740993, "d": "1234567890123456789012345678.0123456789",
		"day": "2026-11-27", "ts": "2026-11-27T10:00:00.123456", "tstz": "2026-11-27T10:00:00.123456Z",
		"ts_ns": "2026-11-27T10:00:00.123456789", "tstz_ns": "2026-11-27T10:00:00.123456789Z",
		"s": "héllo ", "u": "0e5c4e1e-6a4b-4bc8-9f57-2f7a2c9b1d3e", "bin": "AAEC",
		"t": "10:00:00.5", "st": map[string]any{"x": 1, "y": "a"}, "li": []any{"1.50", "-0.01"},
	}
	if _, _, err := tb.Append(ctx, nil, records(t, tb, row)); err != nil {
		t.Fatal(err)
	}
	db := sourcetest.DB(t)
	src, err := sources.Open(sources.Location{Role: "sink", URI: "iceberg:wh/db/types", BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	in, err := load.Table(ctx, db, "t", src)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, c := range in.Columns {
		types[c.Name] = c.Type
	}
	for col, want := range map[string]string{
		"b": "BOOLEAN", "i": "INTEGER", "l": "BIGINT", "d": "DECIMAL(38,10)", "day": "DATE",
		"ts": "TIMESTAMP", "tstz": "TIMESTAMP WITH TIME ZONE", "ts_ns": "TIMESTAMP_NS", "tstz_ns": "TIMESTAMP_NS",
		"s": "VARCHAR", "u": "VARCHAR", "bin": "BLOB", "t": "TIME", "st": "STRUCT(x BIGINT, y VARCHAR)", "li": "DECIMAL(9,2)[]",
		ice.SnapshotColumn: "BIGINT", ice.JobIDColumn: "VARCHAR", ice.CheckpointColumn: "BIGINT",
	} {
		if types[col] != want {
			t.Errorf("column %s loads as %s, want %s", col, types[col], want)
		}
	}
	_, rows, err := db.Strings(ctx, `SELECT CAST(d AS VARCHAR), CAST(ts AS VARCHAR), CAST(tstz AS VARCHAR), CAST(ts_ns AS VARCHAR), CAST(tstz_ns AS VARCHAR), u, hex(bin), CAST(l AS VARCHAR), CAST(li AS VARCHAR), s FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(rows[0]))
	for i, v := range rows[0] {
		got[i] = *v
	}
	want := []string{"1234567890123456789012345678.0123456789", "2026-11-27 10:00:00.123456", "2026-11-27 10:00:00.123456+00",
		"2026-11-27 10:00:00.123456789", "2026-11-27 10:00:00.123456789", "0e5c4e1e-6a4b-4bc8-9f57-2f7a2c9b1d3e", "000102",
		"9007199254740993", "[1.50, -0.01]", "héllo "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("values\n got %q\nwant %q", got, want)
	}
}

// TestUnmappedType refuses a column reconcile cannot read exactly, naming
// it, before any row is read.
func TestUnmappedType(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 2, Name: "ids", Type: &iceberg.ListType{ElementID: 3, Element: iceberg.PrimitiveTypes.UUID}},
	)
	if _, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "t", schema, 2); err != nil {
		t.Fatal(err)
	}
	src, err := sources.Open(sources.Location{Role: "sink", URI: "iceberg:wh/db/t", BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = src.Read(ctx)
	if !errors.Is(err, ice.ErrUnmappedType) || !strings.Contains(err.Error(), "column ids is list<uuid>") {
		t.Errorf("err = %v, want ErrUnmappedType naming column ids", err)
	}
}
