package sources_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/sources"
)

// benchRows is the size of the benchmark table: 10 million rows, or
// RECONCILE_BENCH_ROWS for a quicker look.
func benchRows(tb testing.TB) int64 { return benchEnv(tb, "RECONCILE_BENCH_ROWS", 10_000_000) }

// timedLoad loads loc into a fresh DuckDB database with load.Table (what a
// run does with an input) and returns the input and the time the load
// took; it fails the benchmark unless the input holds n rows.
func timedLoad(b *testing.B, loc sources.Location, n int64) (*sources.Input, time.Duration) {
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

// benchEnv is the positive count in environment variable name, or def
// when it is not set; any other value fails the benchmark.
func benchEnv(tb testing.TB, name string, def int64) int64 {
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

// benchTable returns the schema-qualified name of a table of n generated
// ledger rows (id bigint, entry_id text, account text, amount
// numeric(18,2), window_end timestamptz, checkpoint_id bigint), creating it
// on first use. It is kept between runs (schema reconcile_bench): creating
// 10 million rows takes about a minute. The table and its comment are
// created in one transaction, so an existing table is complete.
func benchTable(tb testing.TB, conn *pgx.Conn, n int64) string {
	ctx := context.Background()
	name := fmt.Sprintf("ledger_%d", n)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('reconcile_bench.'||$1) IS NOT NULL", name).Scan(&exists); err != nil {
		tb.Fatal(err)
	}
	if exists {
		return "reconcile_bench." + name
	}
	tb.Logf("creating reconcile_bench.%s (%d rows; kept for later runs)", name, n)
	tx, err := conn.Begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for _, q := range []string{
		"CREATE SCHEMA IF NOT EXISTS reconcile_bench",
		fmt.Sprintf(`CREATE TABLE reconcile_bench.%s AS
SELECT i AS id,
       'E' || lpad(i::text, 9, '0') AS entry_id,
       'ACC-' || lpad((i %% 64)::text, 2, '0') AS account,
       ((((i * 7919) %% 2000000) - 1000000) / 100.0)::numeric(18,2) AS amount,
       timestamptz '2026-11-27 00:00:00+00' + (i / 1000) * interval '1 minute' AS window_end,
       i / 100000 AS checkpoint_id
FROM generate_series(1::bigint, %d::bigint) AS i`, name, n),
		fmt.Sprintf("COMMENT ON TABLE reconcile_bench.%s IS 'reconcile benchmark: %d generated rows'", name, n),
		fmt.Sprintf("ANALYZE reconcile_bench.%s", name),
	} {
		if _, err := tx.Exec(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		tb.Fatal(err)
	}
	return "reconcile_bench." + name
}

// peakRSS is the process's peak resident set size in bytes (getrusage).
func peakRSS(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Maxrss * 1024 // kilobytes on Linux
}

// rawCopy streams the table with COPY … TO STDOUT (FORMAT binary) into
// io.Discard and returns rows per second: the server's sending rate, the
// ceiling of any loader.
func rawCopy(tb testing.TB, conn *pgx.Conn, table string) float64 {
	t0 := time.Now()
	tag, err := conn.PgConn().CopyTo(context.Background(), io.Discard, "COPY (SELECT * FROM "+table+") TO STDOUT (FORMAT binary)")
	if err != nil {
		tb.Fatal(err)
	}
	return float64(tag.RowsAffected()) / time.Since(t0).Seconds()
}

// BenchmarkPostgresLoad loads the generated ledger table into DuckDB through
// the postgres kind and reports rows/s next to the raw binary COPY rate
// measured in the same run (the better of one COPY before and one after the
// load), their ratio and the peak RSS of the process. Run it with
//
//	go test -tags duckdb_arrow -run '^$' -bench PostgresLoad -benchtime 1x ./sources/
//
// Targets: ratio ≥ 0.7, peak RSS < 1 GiB.
func BenchmarkPostgresLoad(b *testing.B) {
	conn := pgtest.Connect(b)
	n := benchRows(b)
	table := benchTable(b, conn, n)
	var loadRate, copyRate float64
	for i := 0; i < b.N; i++ {
		c1 := rawCopy(b, conn, table)
		_, d := timedLoad(b, sources.Location{Role: "sink", URI: pgtest.URL(), Options: map[string]any{"table": table}}, n)
		c2 := rawCopy(b, conn, table)
		loadRate, copyRate = float64(n)/d.Seconds(), max(c1, c2)
		b.Logf("%d rows: load %.0f rows/s (%s), raw COPY binary %.0f and %.0f rows/s", n, loadRate, d.Round(time.Millisecond), c1, c2)
	}
	rss := peakRSS(b)
	b.ReportMetric(loadRate, "rows/s")
	b.ReportMetric(copyRate, "copy-rows/s")
	b.ReportMetric(loadRate/copyRate, "ratio")
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	b.Logf("load %.0f rows/s, raw COPY %.0f rows/s, ratio %.2f (target ≥ 0.70), peak RSS %.0f MiB (target < 1024)", loadRate, copyRate, loadRate/copyRate, float64(rss)/(1<<20))
}
