package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/internal/kafkatest"
	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

const benchPartitions = 4

// kafkaBenchTopic starts an in-process cluster and writes n JSON ledger
// records to a topic of 4 partitions: {"entry_id": "E000000001", "account":
// "ACC-07", "amount": 1234.56, "checkpoint_id": 17} (~80 bytes).
func kafkaBenchTopic(b testing.TB, n int64) *kafkatest.Cluster {
	c, err := kafkatest.Start(0, map[string]int32{"bench": benchPartitions})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	cl, err := c.Producer(kgo.ProducerLinger(5*time.Millisecond), kgo.ProducerBatchMaxBytes(1<<20), kgo.MaxBufferedRecords(1<<20))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	t0 := time.Now()
	var failed error
	for i := int64(0); i < n; i++ {
		cents := (i*7919)%2000000 - 1000000
		amount := fmt.Sprintf("%d.%02d", cents/100, abs(cents%100))
		r := kafkatest.Record("bench", int32(i%benchPartitions),
			"entry_id", fmt.Sprintf("E%09d", i), "account", fmt.Sprintf("ACC-%02d", i%64),
			"amount", json.Number(amount), "checkpoint_id", i/100000)
		cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil && failed == nil {
				failed = err
			}
		})
	}
	if err := cl.Flush(ctx); err != nil || failed != nil {
		b.Fatal(err, failed)
	}
	b.Logf("wrote %d records in %s", n, time.Since(t0).Round(time.Millisecond))
	return c
}

// benchProgress is stderr when RECONCILE_BENCH_PROGRESS is set: the
// progress lines show the fetch (and decode) and the read of the spool
// apart.
func benchProgress() io.Writer {
	if os.Getenv("RECONCILE_BENCH_PROGRESS") != "" {
		return os.Stderr
	}
	return nil
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// plainConsume is the strongest honest baseline: a franz-go consumer of
// every partition from its start, read_committed, counting records into a
// discard until it has n. With decode, each value is also decoded with
// encoding/json into a map of raw fields (what a Go consumer that looks at
// its JSON does, for context). It returns records per second.
func plainConsume(b *testing.B, c *kafkatest.Cluster, n int64, decode bool) float64 {
	parts := map[int32]kgo.Offset{}
	for p := int32(0); p < benchPartitions; p++ {
		parts[p] = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addr), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"bench": parts}))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	t0 := time.Now()
	var got, bytes int64
	for got < n {
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			b.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			got++
			bytes += int64(len(r.Value))
			if decode {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(r.Value, &m); err != nil {
					b.Fatal(err)
				}
				bytes += int64(len(m))
			}
		})
	}
	return float64(got) / time.Since(t0).Seconds()
}

// BenchmarkKafkaRead reads 5 million JSON records (RECONCILE_BENCH_ROWS to
// change it) from an in-process kfake cluster with the kafka kind and
// reports its rows/s next to a plain franz-go consume loop into a discard
// measured in the same run (the better of one before and one after), their
// ratio, the same loop decoding each value with encoding/json (for
// context), and the rate of the whole load into DuckDB, all under the Go
// heap settings of a run (memory.Budget.Apply). Run it with
//
//	go test -tags duckdb_arrow -run '^$' -bench KafkaRead -benchtime 1x ./sources/
//
// Target: ratio ≥ 0.7 (Read, records drained, against the plain loop).
// With -benchtime Nx it also reports the median of the N rounds' ratios
// (median-ratio): one round's ratio moves by ±10% on a shared machine.
func BenchmarkKafkaRead(b *testing.B) {
	// The Go heap as a run sets it (internal/control: the machine's default
	// budget's soft limit and memory.GCPercent), for every contender alike.
	budget, err := memory.Machine("/")
	if err != nil {
		b.Fatal(err)
	}
	defer budget.Apply()()
	n := int64(5_000_000)
	if os.Getenv("RECONCILE_BENCH_ROWS") != "" {
		n = sourcetest.BenchRows(b)
	}
	c := kafkaBenchTopic(b, n)
	ctx := context.Background()
	var readRate, plainRate, jsonRate, loadRate float64
	var ratios []float64
	for i := 0; i < b.N; i++ {
		p1 := plainConsume(b, c, n, false)
		src, err := sources.Open(sources.Location{Role: "sink", URI: c.URI("bench"), Progress: benchProgress()})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		_, rr, err := src.Read(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var rows int64
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
		}
		if err := rr.Err(); err != nil {
			b.Fatal(err)
		}
		rr.Release()
		d := time.Since(t0)
		src.Close()
		if rows != n {
			b.Fatalf("read %d rows, want %d", rows, n)
		}
		p2 := plainConsume(b, c, n, false)
		readRate, plainRate = float64(n)/d.Seconds(), max(p1, p2)
		ratios = append(ratios, readRate/plainRate)
		jsonRate = plainConsume(b, c, n, true)

		_, ld := sourcetest.TimedLoad(b, sources.Location{Role: "sink", URI: c.URI("bench")}, n)
		loadRate = float64(n) / ld.Seconds()
		b.Logf("%d records: Read %.0f rows/s (%s), plain franz-go loop %.0f and %.0f rows/s, the loop with encoding/json %.0f rows/s, load into DuckDB %.0f rows/s (%s)",
			n, readRate, d.Round(time.Millisecond), p1, p2, jsonRate, loadRate, ld.Round(time.Millisecond))
	}
	rss := sourcetest.PeakRSS(b)
	slices.Sort(ratios)
	median := ratios[len(ratios)/2]
	if len(ratios)%2 == 0 {
		median = (ratios[len(ratios)/2-1] + median) / 2
	}
	b.ReportMetric(readRate, "rows/s")
	b.ReportMetric(plainRate, "plain-rows/s")
	b.ReportMetric(readRate/plainRate, "ratio")
	b.ReportMetric(median, "median-ratio")
	b.ReportMetric(loadRate, "load-rows/s")
	b.ReportMetric(jsonRate, "json-loop-rows/s")
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	b.Logf("median ratio of %d rounds %.2f (target ≥ 0.70), each %.2f", len(ratios), median, ratios)
	b.Logf("Read %.0f rows/s, plain loop %.0f rows/s, ratio %.2f (target ≥ 0.70); the loop decoding with encoding/json %.0f rows/s (Read is %.2f of it); load into DuckDB %.0f rows/s (%.2f of the plain loop); peak RSS %.0f MiB",
		readRate, plainRate, readRate/plainRate, jsonRate, readRate/jsonRate, loadRate, loadRate/plainRate, float64(rss)/(1<<20))
}

// Every record of a topic read in several fetches per partition (the
// decoders reuse their buffers from one fetched part to the next,
// fetchArena) is read once with its own values: 100,000 ledger records
// (8 MB over 4 partitions of 2 MB fetches), each id once, each amount the
// one written.
func TestKafkaManyFetches(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000 records")
	}
	const n = 100_000
	c := kafkaBenchTopic(t, n)
	rr := records(t, sources.Location{Role: "sink", URI: c.URI("bench")})
	seen := make([]bool, n)
	rows := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		col := func(name string) *array.String {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("column %s: %v", name, idx)
			}
			return rec.Column(idx[0]).(*array.String)
		}
		ids, amounts := col("entry_id"), col("amount")
		for r := range int(rec.NumRows()) {
			var i int64
			if _, err := fmt.Sscanf(ids.Value(r), "E%09d", &i); err != nil || i < 0 || i >= n || seen[i] {
				t.Fatalf("row %d: id %q read twice or not written", rows, ids.Value(r))
			}
			seen[i] = true
			cents := (i*7919)%2000000 - 1000000
			if want := fmt.Sprintf("%d.%02d", cents/100, abs(cents%100)); amounts.Value(r) != want {
				t.Fatalf("%s: amount %s, want %s", ids.Value(r), amounts.Value(r), want)
			}
			rows++
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != n {
		t.Fatalf("%d rows, want %d", rows, n)
	}
}
