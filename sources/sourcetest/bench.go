package sourcetest

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
)

// What the kinds' load benchmarks (BenchmarkPostgresLoad, BenchmarkMySQLLoad,
// BenchmarkKafkaRead) share.

// BenchRows is the size of a load benchmark's input: 10 million rows, or
// RECONCILE_BENCH_ROWS for a quicker look.
func BenchRows(tb testing.TB) int64 { return BenchEnv(tb, "RECONCILE_BENCH_ROWS", 10_000_000) }

// BenchEnv is the positive count in environment variable name, or def
// when it is not set; any other value fails the benchmark.
func BenchEnv(tb testing.TB, name string, def int64) int64 {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		tb.Fatalf("%s=%q: want a positive count", name, s)
	}
	return v
}

// TimedLoad loads loc into a fresh DuckDB database with load.Table (what a
// run does with an input) and returns the input and the time the load
// took; it fails the benchmark unless the input holds n rows.
func TimedLoad(b *testing.B, loc sources.Location, n int64) (*sources.Input, time.Duration) {
	b.Helper()
	ctx := context.Background()
	db, err := duck.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	src, err := sources.Open(loc)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	t0 := time.Now()
	in, err := load.Table(ctx, db, "sink", src)
	if err != nil {
		b.Fatal(err)
	}
	d := time.Since(t0)
	if in.Rows != n {
		b.Fatalf("loaded %d rows, want %d", in.Rows, n)
	}
	return in, d
}
