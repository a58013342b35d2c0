package postgres_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/internal/pgtest"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

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
//	go test -tags duckdb_arrow -run '^$' -bench PostgresLoad -benchtime 1x ./sources/postgres/
//
// Targets: ratio ≥ 0.7, peak RSS < 1 GiB.
func BenchmarkPostgresLoad(b *testing.B) {
	conn := pgtest.Connect(b)
	n := sourcetest.BenchRows(b)
	table := benchTable(b, conn, n)
	var loadRate, copyRate float64
	for i := 0; i < b.N; i++ {
		c1 := rawCopy(b, conn, table)
		_, d := sourcetest.TimedLoad(b, sources.Location{Role: "sink", URI: pgtest.URL(), Options: map[string]any{"table": table}}, n)
		c2 := rawCopy(b, conn, table)
		loadRate, copyRate = float64(n)/d.Seconds(), max(c1, c2)
		b.Logf("%d rows: load %.0f rows/s (%s), raw COPY binary %.0f and %.0f rows/s", n, loadRate, d.Round(time.Millisecond), c1, c2)
	}
	rss := sourcetest.PeakRSS(b)
	b.ReportMetric(loadRate, "rows/s")
	b.ReportMetric(copyRate, "copy-rows/s")
	b.ReportMetric(loadRate/copyRate, "ratio")
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	b.Logf("load %.0f rows/s, raw COPY %.0f rows/s, ratio %.2f (target ≥ 0.70), peak RSS %.0f MiB (target < 1024)", loadRate, copyRate, loadRate/copyRate, float64(rss)/(1<<20))
}
