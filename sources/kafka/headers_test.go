package kafka_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/sources"
)

// A record may carry a header name more than once (Kafka allows it): every
// value is kept, the record is never bad. When a record of the input
// repeats a header, that header's column holds each record's values as a
// JSON array, in order — across partitions decoded apart — and the details
// name it; a header no record repeats stays plain text. The live topic (an
// in-process cluster) and its kcat dump read alike.
func TestKafkaRepeatedHeader(t *testing.T) {
	h := func(kv ...string) []kgo.RecordHeader {
		var hs []kgo.RecordHeader
		for i := 0; i < len(kv); i += 2 {
			hs = append(hs, kgo.RecordHeader{Key: kv[i], Value: []byte(kv[i+1])})
		}
		return hs
	}
	rec := func(p int32, id string, hs []kgo.RecordHeader) *kgo.Record {
		r := raw("t", p, "", `{"id":"`+id+`"}`)
		r.Headers = hs
		return r
	}
	nullValue := append(h("trace", "a"), kgo.RecordHeader{Key: "trace"})
	recs := []*kgo.Record{
		rec(0, "1", h("region", "eu", "trace", "t-0")),
		rec(0, "2", nil),
		rec(1, "3", h("trace", "t-1", "region", "us", "trace", "t-2")),
		rec(1, "4", h("trace", "t-3")),
		rec(1, "5", nullValue),
		rec(1, "6", h("quote", `say "é"\`, "quote", "tab\there")),
	}
	want := []string{
		`id=1 __partition=0 __offset=0 __header_region=eu __header_trace=["t-0"] __header_quote=NULL __file=t[0] __line=0`,
		`id=2 __partition=0 __offset=1 __header_region=NULL __header_trace=NULL __header_quote=NULL __file=t[0] __line=1`,
		`id=3 __partition=1 __offset=0 __header_region=us __header_trace=["t-1","t-2"] __header_quote=NULL __file=t[1] __line=0`,
		`id=4 __partition=1 __offset=1 __header_region=NULL __header_trace=["t-3"] __header_quote=NULL __file=t[1] __line=1`,
		`id=5 __partition=1 __offset=2 __header_region=NULL __header_trace=["a",null] __header_quote=NULL __file=t[1] __line=2`,
		`id=6 __partition=1 __offset=3 __header_region=NULL __header_trace=NULL __header_quote=["say \"é\"\\","tab\there"] __file=t[1] __line=3`,
	}
	c := startKafka(t, map[string]int32{"t": 2})
	produce(t, c, recs...)
	for name, loc := range map[string]sources.Location{
		"kafka": {URI: c.URI("t"), Options: map[string]any{"key": "none"}},
		"kcat":  kcatDump(t, recs),
	} {
		t.Run(name, func(t *testing.T) {
			if name == "kcat" {
				loc.Options["key"] = "none"
			}
			in, rows, err := readTable(t, loc)
			if err != nil {
				t.Fatal(err)
			}
			wantRows(t, rows, want...)
			if got := fmt.Sprint(in.Details["repeated_headers"]); got != "[quote trace]" {
				t.Errorf("repeated_headers %s, want [quote trace]", got)
			}
			if got := strings.Join(in.Provenance, ","); got != "__header_quote,__header_region,__header_trace,__offset,__partition,__timestamp" {
				t.Errorf("provenance %s", got)
			}
			if len(in.BadRecords) != 0 {
				t.Errorf("bad records %+v", in.BadRecords)
			}
		})
	}
	// No record repeats a header: plain text, no repeated_headers.
	in, rows := mustRead(t, kcatDump(t, recs[:2]))
	wantRows(t, rows,
		`id=1 __partition=0 __offset=0 __header_region=eu __header_trace=t-0 __file=t[0] __line=0`,
		`id=2 __partition=0 __offset=1 __header_region=NULL __header_trace=NULL __file=t[0] __line=1`)
	if _, ok := in.Details["repeated_headers"]; ok {
		t.Errorf("repeated_headers %v without a repeat", in.Details["repeated_headers"])
	}
}
