package mysql_test

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"slices"
	"strconv"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/reconcile-dev/reconcile/internal/mysqltest"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// myBenchRowsPerLoad is the number of generated rows one LOAD DATA of
// myBenchTable sends.
const myBenchRowsPerLoad = 1_000_000

// myBenchTable returns the name (reconcile_bench.ledger_<n>) of a table of
// n generated ledger rows (id BIGINT, entry_id VARCHAR(16), account
// VARCHAR(12), amount DECIMAL(18,2), window_end TIMESTAMP(3), checkpoint_id
// BIGINT), creating it on first use with LOAD DATA LOCAL INFILE of rows the
// benchmark generates. It is kept between runs: generating 10 million rows
// takes minutes. The table's comment is set once every row is in, so a
// table without it is incomplete and made anew.
func myBenchTable(tb testing.TB, db *sql.DB, n int64) string {
	ctx := context.Background()
	name := fmt.Sprintf("ledger_%d", n)
	done := fmt.Sprintf("reconcile benchmark: %d generated rows", n)
	var comment string
	err := db.QueryRowContext(ctx, "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'reconcile_bench' AND TABLE_NAME = ?", name).Scan(&comment)
	if err == nil && comment == done {
		return "reconcile_bench." + name
	}
	if err != nil && err != sql.ErrNoRows {
		tb.Fatal(err)
	}
	tb.Logf("creating reconcile_bench.%s (%d rows; kept for later runs)", name, n)
	t0 := time.Now()
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{
		"SET time_zone = '+00:00'",
		"CREATE DATABASE IF NOT EXISTS reconcile_bench",
		"DROP TABLE IF EXISTS reconcile_bench." + name,
		"CREATE TABLE reconcile_bench." + name + ` (id BIGINT NOT NULL PRIMARY KEY, entry_id VARCHAR(16), account VARCHAR(12),
  amount DECIMAL(18,2), window_end TIMESTAMP(3) NULL, checkpoint_id BIGINT) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	base := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for start := int64(1); start <= n; start += myBenchRowsPerLoad {
		end := min(start+myBenchRowsPerLoad-1, n)
		handler := "reconcile_bench_" + name
		gomysql.RegisterReaderHandler(handler, func() io.Reader {
			pr, pw := io.Pipe()
			go func() {
				w := bufio.NewWriterSize(pw, 1<<20)
				var line []byte
				for i := start; i <= end; i++ {
					amount := (i*7919)%2000000 - 1000000
					sign := ""
					if amount < 0 {
						sign, amount = "-", -amount
					}
					line = line[:0]
					line = strconv.AppendInt(line, i, 10)
					line = fmt.Appendf(line, "\tE%09d\tACC-%02d\t%s%d.%02d\t", i, i%64, sign, amount/100, amount%100)
					line = base.Add(time.Duration(i/1000)*time.Minute).AppendFormat(line, "2006-01-02 15:04:05.000")
					line = append(line, '\t')
					line = strconv.AppendInt(line, i/100000, 10)
					line = append(line, '\n')
					w.Write(line)
				}
				pw.CloseWithError(w.Flush())
			}()
			return pr
		})
		_, err := conn.ExecContext(ctx, "LOAD DATA LOCAL INFILE 'Reader::"+handler+"' INTO TABLE reconcile_bench."+name+
			" FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' (id, entry_id, account, amount, window_end, checkpoint_id)")
		gomysql.DeregisterReaderHandler(handler)
		if err != nil {
			tb.Fatalf("load rows %d..%d: %v", start, end, err)
		}
	}
	if _, err := conn.ExecContext(ctx, "ALTER TABLE reconcile_bench."+name+" COMMENT = '"+done+"'"); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("created in %s", time.Since(t0).Round(time.Second))
	return "reconcile_bench." + name
}

// myRawRead streams query through the same driver over the text protocol
// into a loop that drops every value (driver.Rows.Next into one reused
// slice, nothing converted or kept), and returns rows per second: the
// driver's reading rate, the ceiling of any loader on it.
func myRawRead(tb testing.TB, db *sql.DB, query string) float64 {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	var n int64
	t0 := time.Now()
	err = conn.Raw(func(dc any) error {
		rows, err := dc.(driver.QueryerContext).QueryContext(ctx, query, nil)
		if err != nil {
			return err
		}
		dest := make([]driver.Value, len(rows.Columns()))
		for {
			if err := rows.Next(dest); err == io.EOF {
				return rows.Close()
			} else if err != nil {
				return err
			}
			n++
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	return float64(n) / time.Since(t0).Seconds()
}

// mySQLRowsRead streams query through database/sql, as a typical Go program
// reads it: rows.Scan into sql.RawBytes (no copy of a value) and discarded.
// It returns rows per second, a reference next to myRawRead's ceiling.
func mySQLRowsRead(tb testing.TB, db *sql.DB, query string) float64 {
	t0 := time.Now()
	rows, err := db.QueryContext(context.Background(), query)
	if err != nil {
		tb.Fatal(err)
	}
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatal(err)
	}
	vals := make([]sql.RawBytes, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			tb.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	rows.Close()
	return float64(n) / time.Since(t0).Seconds()
}

// myBenchRounds is the number of interleaved rounds BenchmarkMySQLLoad
// measures: 3, or RECONCILE_BENCH_ROUNDS.
func myBenchRounds(tb testing.TB) int {
	return int(sourcetest.BenchEnv(tb, "RECONCILE_BENCH_ROUNDS", 3))
}

// BenchmarkMySQLLoad loads the generated ledger table into DuckDB through
// the mysql kind and compares its rows/s with the strongest raw read of the
// same query through the same driver into a discarding loop, measured in
// the same run: the faster of driver.Rows.Next into one reused slice
// (myRawRead) and database/sql's Scan into sql.RawBytes (mySQLRowsRead).
// On a shared machine one read's rate varies by ±15%, so it runs rounds
// (3, or RECONCILE_BENCH_ROUNDS), each a raw read, the load and a RawBytes
// scan back to back, and reports the best load against the best baseline
// (ratio), the median of the rounds' own ratios (median-ratio: each
// round's load against that round's faster baseline), and the peak RSS of
// the process. Run it with
//
//	go test -tags duckdb_arrow -run '^$' -bench MySQLLoad -benchtime 1x ./sources/mysql/
//
// (RECONCILE_BENCH_ROWS=1000000 for a quicker look). Targets: ratio ≥ 0.8,
// peak RSS < 1 GiB.
func BenchmarkMySQLLoad(b *testing.B) {
	db := mysqltest.Connect(b)
	n := sourcetest.BenchRows(b)
	table := myBenchTable(b, db, n)
	query := "SELECT * FROM " + table
	rounds := myBenchRounds(b)
	var loadRate, rawRate, sqlRate float64
	var ratios []float64
	for i := 0; i < b.N; i++ {
		for r := 0; r < rounds; r++ {
			raw := myRawRead(b, db, query)
			in, d := sourcetest.TimedLoad(b, sources.Location{Role: "sink", URI: mysqltest.URL(), Options: map[string]any{"table": table}}, n)
			if in.Details["sql"] != "SELECT * FROM `reconcile_bench`.`"+table[len("reconcile_bench."):]+"`" {
				b.Fatalf("the load ran %v, the raw read %s", in.Details["sql"], query)
			}
			scan := mySQLRowsRead(b, db, query)
			lr := float64(n) / d.Seconds()
			ratios = append(ratios, lr/max(raw, scan))
			loadRate, rawRate, sqlRate = max(loadRate, lr), max(rawRate, raw), max(sqlRate, scan)
			b.Logf("round %d, %d rows: raw driver read %.0f rows/s, load %.0f rows/s (%s), database/sql RawBytes scan %.0f rows/s: %.2f of the faster", r+1, n, raw, lr, d.Round(time.Millisecond), scan, ratios[len(ratios)-1])
		}
	}
	rss := sourcetest.PeakRSS(b)
	base := max(rawRate, sqlRate)
	slices.Sort(ratios)
	median := ratios[len(ratios)/2]
	b.ReportMetric(loadRate, "rows/s")
	b.ReportMetric(rawRate, "raw-rows/s")
	b.ReportMetric(sqlRate, "sql-scan-rows/s")
	b.ReportMetric(loadRate/base, "ratio")
	b.ReportMetric(median, "median-ratio")
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	b.Logf("best of %d rounds: load %.0f rows/s, raw driver read %.0f rows/s, RawBytes scan %.0f rows/s; ratio %.2f of the faster baseline (target ≥ 0.80), median of the rounds' ratios %.2f, peak RSS %.0f MiB (target < 1024)", rounds, loadRate, rawRate, sqlRate, loadRate/base, median, float64(rss)/(1<<20))
}
