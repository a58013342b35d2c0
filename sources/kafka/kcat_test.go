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

	"github.com/reconcile-dev/reconcile/internal/kafkatest"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/kafka"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// The dumps in testdata were made by real kcat 1.7.1 (Debian's
// kafkacat) against the sample broker (samples/kafka/broker):
//
//	kcat -b 127.0.0.1:19092 -C -t commit-abort-commit -J -e -q -X isolation.level=read_committed
//	kcat -b 127.0.0.1:19092 -C -t commit-abort-commit -J -e -q -X isolation.level=read_uncommitted
//	kcat -b 127.0.0.1:19092 -C -t retry-duplicates -J -e -q
//	kcat -b 127.0.0.1:19092 -C -t retry-duplicates -J -e -q -o 5   (after producing one record
//	    with kcat -P -H trace=abc -H x-b=1 -k K9, and one whose value is the bytes ff fe)
//
// Read as kind kcat, each gives the rows the kafka kind reads from the same
// topic: the same columns, offsets and locations.
func TestKcatSameAsKafka(t *testing.T) {
	ctx := context.Background()
	c := startKafka(t, map[string]int32{"commit-abort-commit": 1, "retry-duplicates": 1})
	if err := kafkatest.LoadCommitAbortCommit(ctx, c, "commit-abort-commit"); err != nil {
		t.Fatal(err)
	}
	if err := kafkatest.LoadRetryDuplicates(ctx, c, "retry-duplicates"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ topic, isolation, dump string }{
		{"commit-abort-commit", "read_committed", "commit-abort-commit.read_committed.jsonl"},
		{"commit-abort-commit", "read_uncommitted", "commit-abort-commit.read_uncommitted.jsonl"},
		{"retry-duplicates", "read_committed", "retry-duplicates.jsonl"},
	} {
		t.Run(tc.dump, func(t *testing.T) {
			_, live := mustRead(t, sources.Location{URI: c.URI(tc.topic), Options: map[string]any{"isolation": tc.isolation}})
			in, dump := mustRead(t, sources.Location{URI: "kcat:" + filepath.Join("testdata", tc.dump), Options: map[string]any{"isolation": tc.isolation}})
			wantRows(t, dump, live...)
			if err := in.Hashed(); err != nil {
				t.Fatal(err)
			}
			if in.Kind != "kcat" || in.LocationForm != sources.LocationOffset || len(in.Files) != 1 || in.Files[0].SHA256 == "" {
				t.Errorf("input %+v", in)
			}
			if in.Details["isolation_level"] != tc.isolation {
				t.Errorf("isolation %v", in.Details["isolation_level"])
			}
		})
	}
}

// A kcat dump's isolation level is unknown unless declared, and the
// evidence says so.
func TestKcatIsolationUnknown(t *testing.T) {
	in, _ := mustRead(t, sources.Location{URI: "kcat:testdata/retry-duplicates.jsonl"})
	if in.Details["isolation_level"] != kafka.IsolationUnknown || len(in.Notes) != 1 || !strings.Contains(in.Notes[0], "not declared") {
		t.Errorf("isolation %v, notes %q", in.Details["isolation_level"], in.Notes)
	}
	if _, err := sources.Open(sources.Location{URI: "kcat:x.jsonl", Options: map[string]any{"isolation": "serializable"}}); !errors.Is(err, sources.ErrInvalidLocation) {
		t.Errorf("isolation serializable: %v", err)
	}
}

// Headers become __header_<name> columns and a key its own column; a
// value whose bytes are not UTF-8 (kcat writes them raw) is a bad record
// under value: json, listed with its location.
func TestKcatHeadersKeyAndBinary(t *testing.T) {
	in, rows := mustRead(t, sources.Location{URI: "kcat:testdata/headers-and-binary.jsonl", Options: map[string]any{"bad_records": "report", "isolation": "read_committed"}})
	wantRows(t, rows,
		"key=K9 id=9 __partition=0 __offset=5 __header_trace=abc __header_x-b=1 __file=retry-duplicates[0] __line=5")
	if len(in.BadRecords) != 1 || in.BadRecords[0].Location != "retry-duplicates[0]@6" || !strings.Contains(in.BadRecords[0].Reason, "UTF-8") {
		t.Errorf("bad records %+v", in.BadRecords)
	}
	want := []string{"__header_trace", "__header_x-b", "__offset", "__partition", "__timestamp"}
	if strings.Join(in.Provenance, ",") != strings.Join(want, ",") {
		t.Errorf("provenance %v, want %v", in.Provenance, want)
	}
}

// Two dumps of one partition concatenated list offsets twice: refused,
// naming file and line, rather than counting records twice.
func TestKcatOffsetsTwice(t *testing.T) {
	data, err := os.ReadFile("testdata/retry-duplicates.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "twice.jsonl")
	if err := os.WriteFile(p, append(data, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = readTable(t, sources.Location{URI: "kcat:" + p, Options: map[string]any{"isolation": "read_committed"}})
	if !errors.Is(err, kafka.ErrRead) || !strings.Contains(err.Error(), "twice.jsonl:6") || !strings.Contains(err.Error(), "retry-duplicates[0]@0") {
		t.Errorf("err = %v", err)
	}
}

// The kcat kind passes the conformance suite, plain and compressed: the
// fixture as a kcat -J dump of a one-partition topic (so __line is the
// offset), values as JSON objects with the amounts as JSON numbers.
func TestKcatConformance(t *testing.T) {
	sourcetest.RunCompressed(t, func(t *testing.T, dir string) sources.Location {
		var b strings.Builder
		for i, r := range sourcetest.Fixture().Rows {
			var fields []any
			for j, col := range sourcetest.Fixture().Columns {
				var v any
				switch {
				case r[j] == nil:
				case col == "amount":
					v = json.Number(*r[j])
				default:
					v = *r[j]
				}
				fields = append(fields, col, v)
			}
			payload, _ := json.Marshal(string(kafkatest.Object(fields...)))
			fmt.Fprintf(&b, `{"topic":"fixture","partition":0,"offset":%d,"tstype":"create","ts":1795694400000,"broker":0,"key":null,"payload":%s}`+"\n", i, payload)
		}
		p := filepath.Join(dir, "dump.jsonl")
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return sources.Location{Role: "source", URI: p, Options: map[string]any{"kind": "kcat", "isolation": "read_committed"}}
	})
}

// kcatBatches reads a generated dump and returns each record batch's row
// count and its largest value in bytes, checking every row's id against
// its offset.
func kcatBatches(t *testing.T, lines []string, opts map[string]any) (rows []int64, widest []int) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dump.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rr := records(t, sources.Location{Role: "sink", URI: "kcat:" + path, Options: opts})
	for rr.Next() {
		rec := rr.RecordBatch()
		rows = append(rows, rec.NumRows())
		w := 0
		for i := range int(rec.NumCols()) {
			if s, ok := rec.Column(i).(interface {
				Len() int
				ValueLen(int) int
			}); ok {
				for j := range s.Len() {
					w = max(w, s.ValueLen(j))
				}
			}
		}
		widest = append(widest, w)
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, widest
}

// A dump whose partitions interleave record by record (as kcat writes a
// topic) still makes batches of many records; records of a megabyte each
// make batches of at most BatchBytes of values, not one batch of all.
func TestKcatBatchBounds(t *testing.T) {
	var lines []string
	for i := range 3000 {
		lines = append(lines, fmt.Sprintf(`{"topic":"t","partition":%d,"offset":%d,"tstype":"create","ts":1,"key":null,"payload":"{\"id\":\"%d\"}"}`, i%2, i/2, i))
	}
	rows, _ := kcatBatches(t, lines, nil)
	if len(rows) != 2 || rows[0]+rows[1] != 3000 {
		t.Errorf("interleaved partitions: batches of %v rows, want one batch a partition", rows)
	}

	big := strings.Repeat("x", 1<<20)
	lines = lines[:0]
	for i := range 100 {
		lines = append(lines, fmt.Sprintf(`{"topic":"t","partition":0,"offset":%d,"tstype":"create","ts":1,"key":null,"payload":"%d%s"}`, i, i%10, big))
	}
	rows, widest := kcatBatches(t, lines, map[string]any{"value": "string"})
	var total int64
	for i, n := range rows {
		total += n
		if n*int64(widest[i]) > 2*sources.BatchBytes {
			t.Errorf("batch %d: %d rows of up to %d bytes", i, n, widest[i])
		}
	}
	if total != 100 || len(rows) < 3 {
		t.Errorf("1 MB records: batches of %v rows, want 100 rows in batches of at most about BatchBytes", rows)
	}
}

// An envelope field given twice (fastjson takes the first, another reader
// the last) and a lone surrogate escape anywhere in a line are refused,
// naming file and line.
func TestKcatNotQuiteJSON(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"topic":"t","partition":0,"offset":0,"tstype":"create","ts":1,"key":null,"payload":"{\"id\":\"E1\"}","payload":"{\"id\":\"E9\"}"}`, `field "payload" is given twice`},
		{`{"topic":"t","partition":0,"offset":0,"tstype":"create","ts":1,"key":"k\ud800","payload":"{\"id\":\"E1\"}"}`, `the escape \ud800 is half of a UTF-16 surrogate pair`},
	} {
		p := filepath.Join(t.TempDir(), "dump.jsonl")
		if err := os.WriteFile(p, []byte(tc.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := readTable(t, sources.Location{URI: "kcat:" + p})
		if !errors.Is(err, kafka.ErrRead) || !strings.Contains(err.Error(), "dump.jsonl:1") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q naming dump.jsonl:1", err, tc.want)
		}
	}
}
