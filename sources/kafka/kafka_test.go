package kafka_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/kafkatest"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/kafka"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// startKafka starts an in-process cluster with the topics given, closed
// when the test ends.
func startKafka(t *testing.T, topics map[string]int32) *kafkatest.Cluster {
	t.Helper()
	c, err := kafkatest.Start(0, topics)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// readTable reads loc with Read and returns the Input and every row as
// "col=value" text (NULL as col=NULL), provenance included, in read order.
func readTable(t *testing.T, loc sources.Location) (*sources.Input, []string, error) {
	t.Helper()
	if loc.Role == "" {
		loc.Role = "sink"
	}
	src, err := sources.Open(loc)
	if err != nil {
		return nil, nil, err
	}
	defer src.Close()
	in, rr, err := src.Read(context.Background())
	if err != nil {
		return nil, nil, err
	}
	defer rr.Release()
	var rows []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			var parts []string
			for c := 0; c < int(rec.NumCols()); c++ {
				name := rec.ColumnName(c)
				if name == sources.RowColumn || name == kafka.TimestampColumn {
					continue
				}
				col := rec.Column(c)
				v := "NULL"
				if !col.IsNull(r) {
					if s, ok := col.(*array.String); ok {
						v = s.Value(r)
					} else {
						v = col.ValueStr(r)
					}
				}
				parts = append(parts, name+"="+v)
			}
			rows = append(rows, strings.Join(parts, " "))
		}
	}
	return in, rows, rr.Err()
}

// records opens loc and returns its records, released and closed when
// the test ends.
func records(t *testing.T, loc sources.Location) array.RecordReader {
	t.Helper()
	src, err := sources.Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	_, rr, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rr.Release)
	return rr
}

func mustRead(t *testing.T, loc sources.Location) (*sources.Input, []string) {
	t.Helper()
	in, rows, err := readTable(t, loc)
	if err != nil {
		t.Fatal(err)
	}
	return in, rows
}

func wantRows(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func partitionsOf(t *testing.T, in *sources.Input) []map[string]any {
	t.Helper()
	ps, ok := in.Details["partitions"].([]map[string]any)
	if !ok {
		t.Fatalf("details partitions: %#v", in.Details["partitions"])
	}
	return ps
}

// A transactional producer commits T1 (ids 1, 2), aborts T2 (3, 4) and
// commits T3 (3, 4 again). read_committed sees ids 1–4 once, at offsets
// with gaps where the markers and the aborted records are; read_uncommitted
// sees 3 and 4 twice.
func TestKafkaCommitAbortCommit(t *testing.T) {
	ctx := context.Background()
	c := startKafka(t, map[string]int32{"ledger": 1})
	if err := kafkatest.LoadCommitAbortCommit(ctx, c, "ledger"); err != nil {
		t.Fatal(err)
	}
	in, rows := mustRead(t, sources.Location{URI: c.URI("ledger")})
	// offsets: 0,1 T1; 2 commit; 3,4 T2; 5 abort; 6,7 T3; 8 commit
	wantRows(t, rows,
		"id=1 amount=10.00 checkpoint_id=1 __partition=0 __offset=0 __file=ledger[0] __line=0",
		"id=2 amount=20.50 checkpoint_id=1 __partition=0 __offset=1 __file=ledger[0] __line=1",
		"id=3 amount=30.00 checkpoint_id=3 __partition=0 __offset=6 __file=ledger[0] __line=6",
		"id=4 amount=40.25 checkpoint_id=3 __partition=0 __offset=7 __file=ledger[0] __line=7")
	ps := partitionsOf(t, in)
	if got := fmt.Sprint(ps[0]["start_offset"], " ", ps[0]["end_offset"], " ", ps[0]["records"], " ", ps[0]["offsets_without_record"]); got != "0 9 4 5" {
		t.Errorf("partition 0 start end records gaps = %s, want 0 9 4 5", got)
	}
	if in.Details["isolation_level"] != kafka.ReadCommitted || len(in.Notes) != 0 {
		t.Errorf("isolation %v, notes %v: want read_committed and no note", in.Details["isolation_level"], in.Notes)
	}
	if in.LocationForm != sources.LocationOffset {
		t.Errorf("LocationForm %q", in.LocationForm)
	}

	in, rows = mustRead(t, sources.Location{URI: c.URI("ledger"), Options: map[string]any{"isolation": "read_uncommitted"}})
	wantRows(t, rows,
		"id=1 amount=10.00 checkpoint_id=1 __partition=0 __offset=0 __file=ledger[0] __line=0",
		"id=2 amount=20.50 checkpoint_id=1 __partition=0 __offset=1 __file=ledger[0] __line=1",
		"id=3 amount=30.00 checkpoint_id=2 __partition=0 __offset=3 __file=ledger[0] __line=3",
		"id=4 amount=40.25 checkpoint_id=2 __partition=0 __offset=4 __file=ledger[0] __line=4",
		"id=3 amount=30.00 checkpoint_id=3 __partition=0 __offset=6 __file=ledger[0] __line=6",
		"id=4 amount=40.25 checkpoint_id=3 __partition=0 __offset=7 __file=ledger[0] __line=7")
	if len(in.Notes) != 1 || !strings.Contains(in.Notes[0], "aborted transactions") {
		t.Errorf("notes %q: want the read_uncommitted note", in.Notes)
	}
}

// A record whose value is not JSON stops the read with a runtime error
// naming topic, partition and offset; with bad_records: report it is
// listed and the other records load.
func TestKafkaBadRecord(t *testing.T) {
	ctx := context.Background()
	c := startKafka(t, map[string]int32{"t": 1})
	cl, err := c.Producer()
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := kafkatest.Plain(ctx, cl,
		kafkatest.Record("t", 0, "id", "1"),
		&kgo.Record{Topic: "t", Value: []byte("id=2")},
		kafkatest.Record("t", 0, "id", "3")); err != nil {
		t.Fatal(err)
	}
	_, _, err = readTable(t, sources.Location{URI: c.URI("t")})
	if err == nil || !errors.Is(err, kafka.ErrRecord) || fault.Of(err) != fault.Runtime || !strings.Contains(err.Error(), "t[0]@1") {
		t.Fatalf("err = %v: want a runtime error naming t[0]@1", err)
	}
	in, rows := mustRead(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"bad_records": "report"}})
	wantRows(t, rows,
		"id=1 __partition=0 __offset=0 __file=t[0] __line=0",
		"id=3 __partition=0 __offset=2 __file=t[0] __line=2")
	if len(in.BadRecords) != 1 || in.BadRecords[0].Location != "t[0]@1" || !strings.Contains(in.BadRecords[0].Reason, "not JSON") {
		t.Errorf("bad records %+v", in.BadRecords)
	}
}

// A value that does not convert to its declared type is named by its
// record's location as the evidence writes it, topic[partition]@offset (not
// file:line), for a kcat dump of the topic too.
func TestKafkaDeclaredTypeLocation(t *testing.T) {
	c := startKafka(t, map[string]int32{"t": 1})
	produce(t, c,
		raw("t", 0, "k0", `{"id":"1","amount":1.50}`),
		raw("t", 0, "k1", `{"id":"2","amount":"1,50"}`))
	dump := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(dump, []byte(`{"topic":"t","partition":0,"offset":0,"tstype":"create","ts":1,"key":"k0","payload":"{\"id\":\"1\",\"amount\":1.50}"}`+"\n"+
		`{"topic":"t","partition":0,"offset":1,"tstype":"create","ts":2,"key":"k1","payload":"{\"id\":\"2\",\"amount\":\"1,50\"}"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{c.URI("t"), "kcat:" + dump} {
		_, _, err := loadInto(t, sources.Location{Role: "sink", URI: uri, Options: map[string]any{"types": map[string]any{"amount": "DECIMAL(10,2)"}}})
		if err == nil || !strings.Contains(err.Error(), `t[0]@1: column amount: value "1,50"`) {
			t.Errorf("%s: err = %v, want the value named at t[0]@1", uri, err)
		}
	}
}

// A record that goes bad half-way (some of its fields already taken)
// leaves nothing of itself in the rows around it: the key and the fields
// before the bad one are taken back, nulls included, and the next
// record's values line up. A column first seen in a bad record stays, null
// in every row (its first appearance counts).
func TestKafkaBadRecordMidway(t *testing.T) {
	c := startKafka(t, map[string]int32{"t": 1})
	produce(t, c,
		raw("t", 0, "k0", `{"id":"1","amount":1.50}`),
		raw("t", 0, "k1", `{"id":"2","amount":01,"note":"x"}`),
		raw("t", 0, "k2", `{"id":"3","late":null,"id":"3"}`),
		raw("t", 0, "", `{"id":"4","amount":2}`),
		raw("t", 0, "k4", `{"amount":3,"id":"5"}`))
	in, rows := mustRead(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"bad_records": "report"}})
	wantRows(t, rows,
		"key=k0 id=1 amount=1.50 late=NULL __partition=0 __offset=0 __file=t[0] __line=0",
		"key=NULL id=4 amount=2 late=NULL __partition=0 __offset=3 __file=t[0] __line=3",
		"key=k4 id=5 amount=3 late=NULL __partition=0 __offset=4 __file=t[0] __line=4")
	if len(in.BadRecords) != 2 || in.BadRecords[0].Location != "t[0]@1" || in.BadRecords[1].Location != "t[0]@2" {
		t.Errorf("bad records %+v", in.BadRecords)
	}
}

// The kafka kind passes the conformance suite: the fixture written as JSON
// values (amounts as JSON numbers, kept as written; a missing account as
// null) to a topic of one partition, so __line is the offset.
func TestKafkaConformance(t *testing.T) {
	c := startKafka(t, nil)
	n := 0
	sourcetest.Run(t, func(t *testing.T, dir string) sources.Location {
		n++
		topic := fmt.Sprintf("fixture-%d", n)
		if err := c.CreateTopic(topic, 1, nil); err != nil {
			t.Fatal(err)
		}
		cl, err := c.Producer(kgo.ProducerLinger(0))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		var recs []*kgo.Record
		for _, r := range sourcetest.Fixture().Rows {
			var fields []any
			for i, col := range sourcetest.Fixture().Columns {
				var v any
				switch {
				case r[i] == nil:
					v = nil
				case col == "amount":
					v = json.Number(*r[i])
				default:
					v = *r[i]
				}
				fields = append(fields, col, v)
			}
			recs = append(recs, kafkatest.Record(topic, 0, fields...))
		}
		if err := kafkatest.Plain(context.Background(), cl, recs...); err != nil {
			t.Fatal(err)
		}
		return sources.Location{Role: "source", URI: c.URI(topic)}
	})
}

// A transaction still open when the offsets are listed holds the last
// stable offset back: read_committed reads up to it, records the high
// watermark and notes the offsets it did not read; read_uncommitted reads
// the open transaction's records too.
func TestKafkaOpenTransaction(t *testing.T) {
	ctx := context.Background()
	c := startKafka(t, map[string]int32{"t": 1})
	plain, err := c.Producer()
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := kafkatest.Plain(ctx, plain, kafkatest.Record("t", 0, "id", "1"), kafkatest.Record("t", 0, "id", "2")); err != nil {
		t.Fatal(err)
	}
	tx, err := c.Transactional("open")
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	if err := tx.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := tx.ProduceSync(ctx, kafkatest.Record("t", 0, "id", "3"), kafkatest.Record("t", 0, "id", "4")).FirstErr(); err != nil {
		t.Fatal(err)
	}
	in, rows := mustRead(t, sources.Location{URI: c.URI("t")})
	wantRows(t, rows,
		"id=1 __partition=0 __offset=0 __file=t[0] __line=0",
		"id=2 __partition=0 __offset=1 __file=t[0] __line=1")
	p := partitionsOf(t, in)[0]
	if p["end_offset"] != int64(2) || p["high_watermark"] != int64(4) {
		t.Errorf("partition %v: want end_offset 2, high_watermark 4", p)
	}
	// a WARNING, so the short summary shows it even with --quiet
	if len(in.Notes) != 1 || !strings.HasPrefix(in.Notes[0], "WARNING: ") || !strings.Contains(in.Notes[0], "t[0] 2..4") {
		t.Errorf("notes %q", in.Notes)
	}
	_, rows = mustRead(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"isolation": "read_uncommitted"}})
	if len(rows) != 4 {
		t.Errorf("read_uncommitted: %d rows, want 4", len(rows))
	}
	if err := tx.EndTransaction(ctx, kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
}

// loadInto opens loc and loads it as table t of a fresh DuckDB session.
func loadInto(t *testing.T, loc sources.Location) (*duck.DB, *sources.Input, error) {
	t.Helper()
	db, err := duck.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src, err := sources.Open(loc)
	if err != nil {
		return db, nil, err
	}
	defer src.Close()
	in, err := load.Table(context.Background(), db, "t", src)
	return db, in, err
}
