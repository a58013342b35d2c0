package load_test

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
)

// base is 2026-01-01T10:00:00Z in nanoseconds since the epoch.
const base = int64(1767261600) * 1e9

// writeArrowParquet writes one Parquet file at dir/name (folders made) of
// an id column ("1", "2", …) and a column col of type typ holding values
// (one per row, each an int64 of typ's unit, or a decimal's text; nil for
// NULL), with pqarrow (Parquet 2.6; int96: timestamps as INT96).
func writeArrowParquet(t *testing.T, dir, name, col string, typ arrow.DataType, int96 bool, values ...any) {
	t.Helper()
	mem := memory.DefaultAllocator
	ids := array.NewStringBuilder(mem)
	defer ids.Release()
	vb := array.NewBuilder(mem, typ)
	defer vb.Release()
	for i, v := range values {
		ids.Append(string(rune('1' + i)))
		switch x := v.(type) {
		case nil:
			vb.AppendNull()
		case int64:
			switch b := vb.(type) {
			case *array.TimestampBuilder:
				b.Append(arrow.Timestamp(x))
			case *array.Time64Builder:
				b.Append(arrow.Time64(x))
			case *array.Time32Builder:
				b.Append(arrow.Time32(x))
			default:
				t.Fatalf("no int64 for %s", typ)
			}
		case string:
			n, ok := new(big.Int).SetString(strings.ReplaceAll(x, ".", ""), 10)
			if !ok {
				t.Fatalf("decimal %q", x)
			}
			vb.(*array.Decimal256Builder).Append(decimal256.FromBigInt(n))
		}
	}
	idArr, vArr := ids.NewArray(), vb.NewArray()
	defer idArr.Release()
	defer vArr.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: col, Type: typ, Nullable: true}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{idArr, vArr}, int64(len(values)))
	defer rec.Release()
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	defer tbl.Release()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pqarrow.WriteTable(tbl, f, 1024, parquet.NewWriterProperties(parquet.WithVersion(parquet.V2_6)), pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(int96))); err != nil {
		t.Fatal(err)
	}
}

// parquetCase loads uri of dir, by DuckDB's reader (Scan) and by Read, with
// and without bad_records: report, and checks the rows (query over table
// t), the bad records listed, and the error without report.
type parquetCase struct {
	name, uri, query, rows, bad, fail string
}

func (c parquetCase) run(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	for _, path := range []string{"scan", "read"} {
		for _, report := range []bool{false, true} {
			out, err := duck.Open(ctx, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			opts := map[string]any{}
			if report {
				opts["bad_records"] = "report"
			}
			src, err := sources.Open(sources.Location{Role: "sink", URI: c.uri, BaseDir: dir, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			if path == "read" {
				src = readOnly(src)
			}
			in, err := load.Table(ctx, out, "t", src)
			switch {
			case !report && c.fail != "":
				if err == nil || !strings.Contains(err.Error(), c.fail) {
					t.Errorf("%s %s: err = %v, want %q", c.name, path, err, c.fail)
				}
			case err != nil:
				t.Errorf("%s %s report=%v: %v", c.name, path, report, err)
			default:
				if got := rowsOf(t, out, c.query); got != c.rows {
					t.Errorf("%s %s report=%v: rows %s, want %s", c.name, path, report, got, c.rows)
				}
				if got := badRecordsText(in.BadRecords); got != c.bad {
					t.Errorf("%s %s report=%v: bad records\n%s\nwant\n%s", c.name, path, report, got, c.bad)
				}
			}
			out.Close()
		}
	}
}

// Parquet nanosecond timestamps that DuckDB reads in microseconds — a
// TIMESTAMP(NANOS, isAdjustedToUTC=true), as pandas and pyarrow write every
// zone-aware column, and an INT96 (Spark's legacy encoding) — lost their
// last three digits: …000000999 loaded as …000000 and matched …000000001.
// A value with digits below a microsecond is refused naming file, row,
// column and value (with bad_records: report, listed and left out); whole
// microseconds load exactly, by DuckDB's reader and by Read alike; a
// zone-less TIMESTAMP(NANOS) stays TIMESTAMP_NS, exact.
func TestParquetNanoseconds(t *testing.T) {
	dir := t.TempDir()
	nsUTC := &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	writeArrowParquet(t, dir, "utc.parquet", "ts", nsUTC, false, base+5000, base+999, nil)
	writeArrowParquet(t, dir, "int96.parquet", "ts", nsUTC, true, base+5000, base+999, nil)
	writeArrowParquet(t, dir, "naive.parquet", "ts", &arrow.TimestampType{Unit: arrow.Nanosecond}, false, base+5000, base+999)
	for _, c := range []parquetCase{
		{
			name: "utc", uri: "utc.parquet", query: "SELECT id, CAST(ts AS VARCHAR), typeof(ts) FROM t ORDER BY __row",
			rows: "[1 2026-01-01 10:00:00.000005+00 TIMESTAMP WITH TIME ZONE] [3 NULL TIMESTAMP WITH TIME ZONE]",
			bad:  `utc.parquet:2|ts|"2026-01-01T10:00:00.000000999Z"|has digits below a microsecond: DuckDB reads a Parquet TIMESTAMP(NANOS, isAdjustedToUTC=true) as a TIMESTAMP WITH TIME ZONE, in microseconds, which would drop them (10:00:00.000000999 would equal 10:00:00.000000001)`,
			fail: `utc.parquet:2: column ts: value "2026-01-01T10:00:00.000000999Z" has digits below a microsecond`,
		},
		{
			name: "int96", uri: "int96.parquet", query: "SELECT id, CAST(ts AS VARCHAR), typeof(ts) FROM t ORDER BY __row",
			rows: "[1 2026-01-01 10:00:00.000005 TIMESTAMP] [3 NULL TIMESTAMP]",
			bad:  `int96.parquet:2|ts|"2026-01-01T10:00:00.000000999"|has digits below a microsecond: DuckDB reads a Parquet INT96 timestamp (nanoseconds) as a TIMESTAMP, in microseconds, which would drop them (10:00:00.000000999 would equal 10:00:00.000000001)`,
			fail: `int96.parquet:2: column ts: value "2026-01-01T10:00:00.000000999" has digits below a microsecond`,
		},
		{
			name: "naive", uri: "naive.parquet", query: "SELECT id, CAST(ts AS VARCHAR), typeof(ts) FROM t ORDER BY __row",
			rows: "[1 2026-01-01 10:00:00.000005 TIMESTAMP_NS] [2 2026-01-01 10:00:00.000000999 TIMESTAMP_NS]",
		},
	} {
		c.run(t, dir)
	}
}

// A Parquet DECIMAL of more than 38 digits (a 256-bit decimal: DuckDB's
// read_parquet reads DECIMAL(40,2) 1.01 as the DOUBLE 7.3e16) was refused
// as "files of one input differ in schema" although there is one file.
// Such a column is read exactly, as the narrowest DECIMAL its values need;
// a value that no DECIMAL holds beside the others' fraction digits is
// refused naming file, row, column and value (listed with report).
func TestParquetDecimalBeyond38(t *testing.T) {
	dir := t.TempDir()
	d40 := &arrow.Decimal256Type{Precision: 40, Scale: 2}
	writeArrowParquet(t, dir, "small.parquet", "amount", d40, false, "1.01", "2.50", nil)
	writeArrowParquet(t, dir, "wide.parquet", "amount", d40, false, "1.01", "12345678901234567890123456789012345678.50", "-3.00")
	for _, c := range []parquetCase{
		{
			name: "small", uri: "small.parquet", query: "SELECT id, CAST(amount AS VARCHAR), typeof(amount) FROM t ORDER BY __row",
			rows: "[1 1.01 DECIMAL(3,2)] [2 2.50 DECIMAL(3,2)] [3 NULL DECIMAL(3,2)]",
		},
		{
			name: "wide", uri: "wide.parquet", query: "SELECT id, CAST(amount AS VARCHAR), typeof(amount) FROM t ORDER BY __row",
			rows: "[1 1.01 DECIMAL(3,2)] [3 -3.00 DECIMAL(3,2)]",
			bad:  `wide.parquet:2|amount|"12345678901234567890123456789012345678.50"|has 38 integer digits; beside the 2 fraction digits the column's values need (1.01 at wide.parquet:1), an exact DECIMAL (38 digits at most) holds 36 (the column is DECIMAL(40,2) in wide.parquet)`,
			fail: `wide.parquet:2: column amount: value "12345678901234567890123456789012345678.50" has 38 integer digits`,
		},
	} {
		c.run(t, dir)
	}
}

// Part files whose timestamps are in milliseconds and in microseconds were
// refused as "no type holds both" although TIMESTAMP holds both: they are
// read exactly, as microseconds; zone-less nanoseconds with microseconds as
// TIMESTAMP_NS, each microsecond value checked against its range; an
// instant (adjusted to UTC) and a wall-clock time are refused saying why.
func TestParquetTimestampUnits(t *testing.T) {
	dir := t.TempDir()
	writeArrowParquet(t, dir, "units/a.parquet", "ts", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, false, (base+123e6)/1e6)
	writeArrowParquet(t, dir, "units/b.parquet", "ts", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, false, (base+1000)/1e3)
	writeArrowParquet(t, dir, "ns/a.parquet", "ts", &arrow.TimestampType{Unit: arrow.Nanosecond}, false, base+1)
	writeArrowParquet(t, dir, "ns/b.parquet", "ts", &arrow.TimestampType{Unit: arrow.Microsecond}, false, (base+1000)/1e3, int64(32503680000)*1e6)
	writeArrowParquet(t, dir, "zones/a.parquet", "ts", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, false, base/1e3)
	writeArrowParquet(t, dir, "zones/b.parquet", "ts", &arrow.TimestampType{Unit: arrow.Microsecond}, false, base/1e3)
	for _, c := range []parquetCase{
		{
			name: "ms and µs", uri: "units/*.parquet", query: "SELECT id, CAST(ts AS VARCHAR), typeof(ts) FROM t ORDER BY __row",
			rows: "[1 2026-01-01 10:00:00.123+00 TIMESTAMP WITH TIME ZONE] [1 2026-01-01 10:00:00.000001+00 TIMESTAMP WITH TIME ZONE]",
		},
		{
			name: "ns and µs", uri: "ns/*.parquet", query: "SELECT id, CAST(ts AS VARCHAR), typeof(ts) FROM t ORDER BY __row",
			rows: "[1 2026-01-01 10:00:00.000000001 TIMESTAMP_NS] [1 2026-01-01 10:00:00.000001 TIMESTAMP_NS]",
			bad:  `ns/b.parquet:2|ts|"3000-01-01T00:00:00"|is beyond TIMESTAMP_NS (1677-09-21 to 2262-04-11), the type the column is read as: another file of the input holds nanoseconds`,
			fail: `ns/b.parquet:2: column ts: value "3000-01-01T00:00:00" is beyond TIMESTAMP_NS`,
		},
	} {
		c.run(t, dir)
	}
	src, err := sources.Open(sources.Location{Role: "sink", URI: "zones/*.parquet", BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = load.Table(context.Background(), db, "t", src)
	if want := "column ts is TIMESTAMP WITH TIME ZONE (timestamp[us, tz=UTC]) in zones/a.parquet but TIMESTAMP (timestamp[us]) in zones/b.parquet; one is adjusted to UTC"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("zones: %v, want %q", err, want)
	}
}
