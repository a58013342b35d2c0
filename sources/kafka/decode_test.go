package kafka

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/sources"
)

func BenchmarkKafkaDecode(b *testing.B) {
	var recs []*kgo.Record
	for i := 0; i < 16384; i++ {
		recs = append(recs, &kgo.Record{Offset: int64(i), Value: []byte(fmt.Sprintf(`{"entry_id":"E%09d","account":"ACC-%02d","amount":%d.%02d,"checkpoint_id":%d}`, i, i%64, i*7919%100000, i%100, i/100))})
	}
	d := newRecordDecoder(recordOptions{value: payloadJSON, key: payloadString}, newKafkaColumns())
	p := partitionRef{"t", 0}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// a spool of 64 chunks at most, so the file stays the size of a
		// read's (a growing file measures the page cache)
		sp := newSpool(&spoolMemory{}) // every chunk to the file
		for j := 0; j < 64 && i < b.N; j++ {
			if _, err := d.decodeChunk(sp, p, recs); err != nil {
				b.Fatal(err)
			}
			i++
		}
		sp.close()
	}
	b.ReportMetric(float64(b.N*len(recs))/b.Elapsed().Seconds(), "records/s")
}

// plainASCII's word-at-a-time test agrees with the byte-at-a-time one for
// every byte at every position of a word.
func TestPlainASCII(t *testing.T) {
	slow := func(b []byte) bool {
		for _, c := range b {
			if c < 0x20 || c == '\\' || c >= 0x80 {
				return false
			}
		}
		return true
	}
	for n := 0; n <= 40; n++ {
		for c := 0; c < 256; c++ {
			for at := 0; at < n; at++ {
				b := []byte(`{"abcdefgh":"ijklmnop","qrstuvwx":"yz0123"}`)[:n]
				b[at] = byte(c)
				if got, want := plainASCII(b), slow(b); got != want {
					t.Fatalf("byte %#x at %d of %d: %v, want %v", c, at, n, got, want)
				}
			}
		}
	}
}

// The rows are the same whether the chunks stay in memory, all go to the
// spool file, or some do each: chunks of two partitions whose columns
// differ (a field only in later records, a null, a key on some records).
func TestSpoolMemoryOrFile(t *testing.T) {
	parts := []partitionRef{{"t", 0}, {"t", 1}}
	read := func(limit int64) string {
		mem := &spoolMemory{limit: limit}
		sp := newSpool(mem)
		cols := newKafkaColumns()
		d := newRecordDecoder(recordOptions{value: payloadJSON, key: payloadString}, cols)
		for c := 0; c < 6; c++ {
			for _, p := range parts {
				var recs []*kgo.Record
				for i := 0; i < 500; i++ {
					off := int64(c*500 + i)
					v := fmt.Sprintf(`{"id":"%d-%d","amount":%d.5}`, p.Partition, off, off)
					if c >= 3 && p.Partition == 1 {
						v = fmt.Sprintf(`{"id":"%d-%d","late":null,"note":"n%d"}`, p.Partition, off, off)
					}
					r := &kgo.Record{Offset: off, Value: []byte(v), Timestamp: time.UnixMilli(off)}
					if i%7 == 0 {
						r.Timestamp = noTime
					}
					if i%3 == 0 {
						r.Key = []byte(fmt.Sprint("k", off))
					}
					recs = append(recs, r)
				}
				if _, err := d.decodeChunk(sp, p, recs); err != nil {
					t.Fatal(err)
				}
			}
		}
		if limit > 0 && limit < 1<<40 && (sp.f == nil || mem.used.Load() == 0) {
			t.Fatalf("limit %d: want chunks both in memory and in the file", limit)
		}
		rr, err := spooledRecords(context.Background(), []*spool{sp}, []*recordDecoder{d}, cols, parts, sources.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		var b strings.Builder
		for rr.Next() {
			rec := rr.RecordBatch()
			for i := range int(rec.NumRows()) {
				for j, c := range rec.Columns() {
					fmt.Fprintf(&b, "%s=%s ", rec.Schema().Field(j).Name, c.ValueStr(i))
				}
				b.WriteByte('\n')
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	inMemory, inFile, both := read(1<<50), read(0), read(40_000)
	if strings.Count(inMemory, "\n") != 6000 || !strings.Contains(inMemory, "note=n2999") {
		t.Fatalf("in memory: %d rows", strings.Count(inMemory, "\n"))
	}
	if inFile != inMemory || both != inMemory {
		t.Errorf("rows differ: in the file %v, part in the file %v", inFile == inMemory, both == inMemory)
	}
}

// A record without escapes (decoded from fastjson's text of each value)
// and the same record with an escape (decoded through fastjson's string
// accessors) give the same row: strings, numbers as written, nested
// objects and arrays as compact text, booleans, nulls.
func TestPlainAndEscapedRecordsAgree(t *testing.T) {
	const plain = `{"id":"7","s":"abc","n":-1.50e3,"o":{"x":"y","m":{"k":1}},"a":[1,"q"],"b":true,"f":false,"z":null}`
	escaped := strings.Replace(plain, `"s":"abc"`, `"s":"ab\u0063"`, 1)
	if !plainASCII([]byte(plain)) || plainASCII([]byte(escaped)) {
		t.Fatal("want one plain record and one with an escape")
	}
	sp := newSpool(&spoolMemory{limit: 1 << 30})
	cols := newKafkaColumns()
	d := newRecordDecoder(recordOptions{value: payloadJSON, key: payloadNone}, cols)
	p := partitionRef{"t", 0}
	if _, err := d.decodeChunk(sp, p, []*kgo.Record{{Offset: 0, Value: []byte(plain)}, {Offset: 1, Value: []byte(escaped)}}); err != nil {
		t.Fatal(err)
	}
	rr, err := spooledRecords(context.Background(), []*spool{sp}, []*recordDecoder{d}, cols, []partitionRef{p}, sources.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if !rr.Next() {
		t.Fatal(rr.Err())
	}
	rec := rr.RecordBatch()
	var row [2]string
	for i := range 2 {
		for j, c := range rec.Columns() {
			if name := rec.Schema().Field(j).Name; !strings.HasPrefix(name, "__") {
				row[i] += name + "=" + c.ValueStr(i) + " "
			}
		}
	}
	const want = `id=7 s=abc n=-1.50e3 o={"x":"y","m":{"k":1}} o.x=y o.m={"k":1} o.m.k=1 a=[1,"q"] b=true f=false z=(null) `
	if row[0] != want || row[1] != want {
		t.Errorf("plain:   %s\nescaped: %s\nwant:    %s", row[0], row[1], want)
	}
}

// jsonNumber accepts exactly RFC 8259's number grammar: every string of up
// to six characters of the grammar's alphabet (and a letter it does not
// have) is judged as the grammar's regular expression judges it.
func TestJSONNumberGrammar(t *testing.T) {
	rfc := regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
	const alphabet = "-+.eE019a"
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		if got, want := jsonNumber(prefix), rfc.Match(prefix); got != want {
			t.Fatalf("jsonNumber(%q) = %v, want %v", prefix, got, want)
		}
		if len(prefix) == 6 {
			return
		}
		for i := range len(alphabet) {
			walk(append(prefix, alphabet[i]))
		}
	}
	walk(make([]byte, 0, 6))
}
