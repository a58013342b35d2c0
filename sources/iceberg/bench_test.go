package iceberg_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	iceberg "github.com/apache/iceberg-go"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/iceberg/icebergtest"
)

// benchTable is the benchmark's table: RECONCILE_BENCH_ICEBERG_ROWS rows
// (default 10,000,000) in 20 data files, one Flink commit each, written
// once per test binary run into a temporary folder — or, with
// RECONCILE_BENCH_ICEBERG_DIR, into that folder once and kept there for the
// next run (rows.txt records the row count it was written with), so that a
// run measured with /usr/bin/time -v measures the load, not the writing.
var benchTable = sync.OnceValues(func() (string, error) {
	rows := 10_000_000
	if v := os.Getenv("RECONCILE_BENCH_ICEBERG_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", err
		}
		rows = n
	}
	dir := os.Getenv("RECONCILE_BENCH_ICEBERG_DIR")
	if dir != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "rows.txt")); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(rows) {
			return dir, nil
		}
		if err := os.RemoveAll(dir); err != nil {
			return "", err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "reconcile-iceberg-bench-"); err != nil {
			return "", err
		}
	}
	ctx := context.Background()
	schema := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "entry_id", Type: iceberg.PrimitiveTypes.String, Required: true},
		iceberg.NestedField{ID: 2, Name: "account", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "amount", Type: iceberg.DecimalTypeOf(18, 2)},
		iceberg.NestedField{ID: 4, Name: "posted_at", Type: iceberg.PrimitiveTypes.TimestampTz},
	)
	tb, err := icebergtest.NewHadoop(ctx, filepath.Join(dir, "wh"), "db", "t", schema, 2)
	if err != nil {
		return "", err
	}
	sc, err := tb.ArrowSchema()
	if err != nil {
		return "", err
	}
	const files = 20
	per := rows / files
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC).UnixMicro()
	for f := range files {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for i := range per {
			n := f*per + i
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("E%09d", n))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("ACC-%d", n%97))
			b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(n*7919%1_000_000 - 500_000)))
			b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(t0 + int64(n)*1000))
		}
		rec := b.NewRecordBatch()
		b.Release()
		_, _, err := tb.Append(ctx, icebergtest.Flink("job", "op", int64(f+1)), rec)
		rec.Release()
		if err != nil {
			return "", err
		}
	}
	if os.Getenv("RECONCILE_BENCH_ICEBERG_DIR") != "" {
		if err := os.WriteFile(filepath.Join(dir, "rows.txt"), []byte(strconv.Itoa(rows)+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
})

// BenchmarkLoad reads the table into DuckDB through the kind (load.Table:
// the plan, and the data files, none with a delete, read by read_parquet
// into the view over their rows: sources.PartScanner) and, as the physical
// limit, the same data files with DuckDB's read_parquet; iceberg_records_only
// drains Read's Arrow records (iceberg-go's scan, the provenance columns,
// the batch builder) without DuckDB, the path of a data file with deletes.
// The closing line reports rows/s, and ratio the kind's rate over
// read_parquet's (go test -bench Load -benchtime 3x). Peak RSS: run one
// sub-benchmark alone under /usr/bin/time -v, the table kept in
// RECONCILE_BENCH_ICEBERG_DIR.
func BenchmarkLoad(b *testing.B) {
	dir, err := benchTable()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	loc := sources.Location{Role: "sink", URI: "iceberg:" + filepath.Join(dir, "wh", "db", "t")}
	var files []string
	var rows int64
	if err := filepath.Walk(filepath.Join(dir, "wh", "db", "t", "data"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			files = append(files, "'"+p+"'")
		}
		return err
	}); err != nil {
		b.Fatal(err)
	}
	rates := map[string]float64{}
	b.Run("iceberg", func(b *testing.B) {
		db := benchDB(b)
		for range b.N {
			src, err := sources.Open(loc)
			if err != nil {
				b.Fatal(err)
			}
			in, err := load.Table(ctx, db, "t", src)
			if err != nil {
				b.Fatal(err)
			}
			rows = in.Rows
			src.Close()
			if err := dropInput(ctx, db, "t"); err != nil {
				b.Fatal(err)
			}
		}
		rates["iceberg"] = float64(rows) * float64(b.N) / b.Elapsed().Seconds()
		b.ReportMetric(rates["iceberg"], "rows/s")
	})
	// The kind's records drained without DuckDB: iceberg-go's decoding and
	// the batch builder, apart from the engine's ingestion.
	b.Run("iceberg_records_only", func(b *testing.B) {
		for range b.N {
			src, err := sources.Open(loc)
			if err != nil {
				b.Fatal(err)
			}
			_, rr, err := src.Read(ctx)
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for rr.Next() {
				n += rr.RecordBatch().NumRows()
			}
			if err := rr.Err(); err != nil {
				b.Fatal(err)
			}
			rr.Release()
			src.Close()
			rows = n
		}
		b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("read_parquet", func(b *testing.B) {
		db := benchDB(b)
		for range b.N {
			if err := db.Exec(ctx, "CREATE TABLE p AS SELECT * FROM read_parquet(["+strings.Join(files, ", ")+"])"); err != nil {
				b.Fatal(err)
			}
			n, err := db.CountRows(ctx, "p")
			if err != nil {
				b.Fatal(err)
			}
			if n != rows && rows != 0 {
				b.Fatalf("read_parquet: %d rows, the kind %d", n, rows)
			}
			if err := db.DropTable(ctx, "p"); err != nil {
				b.Fatal(err)
			}
		}
		rates["read_parquet"] = float64(rows) * float64(b.N) / b.Elapsed().Seconds()
		b.ReportMetric(rates["read_parquet"], "rows/s")
	})
	if rates["read_parquet"] > 0 {
		b.Logf("%d rows in %d data files: the kind %.0f rows/s, read_parquet %.0f rows/s, ratio %.2f", rows, len(files), rates["iceberg"], rates["read_parquet"], rates["iceberg"]/rates["read_parquet"])
	}
}

func benchDB(b *testing.B) *duck.DB {
	db, err := duck.Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}
