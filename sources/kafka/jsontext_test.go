package kafka_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/sources"
)

// kcatDump writes recs (each of topic t, partition 0 unless set) as the
// lines kcat -C -J writes for them, offsets from 0 per partition, and
// returns the dump's location.
func kcatDump(t *testing.T, recs []*kgo.Record) sources.Location {
	t.Helper()
	var b strings.Builder
	next := map[int32]int64{}
	str := func(v []byte) string {
		if v == nil {
			return "null"
		}
		return strconv.Quote(string(v)) // the test's values are JSON-safe as Go quotes them
	}
	for _, r := range recs {
		fmt.Fprintf(&b, `{"topic":"t","partition":%d,"offset":%d,"tstype":"create","ts":%d,"broker":0`, r.Partition, next[r.Partition], r.Timestamp.UnixMilli())
		next[r.Partition]++
		if len(r.Headers) > 0 {
			var hs []string
			for _, h := range r.Headers {
				hs = append(hs, strconv.Quote(h.Key), str(h.Value))
			}
			fmt.Fprintf(&b, `,"headers":[%s]`, strings.Join(hs, ","))
		}
		fmt.Fprintf(&b, `,"key":%s,"payload":%s}`+"\n", str(r.Key), str(r.Value))
	}
	p := filepath.Join(t.TempDir(), "dump.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return sources.Location{URI: "kcat:" + p, Options: map[string]any{"isolation": "read_committed"}}
}

// A nested object or array has one text in every kind that reads JSON
// (jsontext.AppendText): the live topic and its kcat dump give the cells
// the ndjson kind gives for the same values (sources/file's
// TestNDJSONNestedText, the same values and texts), spelled with other
// white space and escapes; key order and number spelling are kept; a key
// given twice at any depth, inside an array too, makes the record bad.
func TestKafkaNestedText(t *testing.T) {
	values := []string{
		`{"id":"1","meta":{"b": 1}}`,
		`{"id":"2","tags": [ "x", {"k" : "v"} ]}`,
		`{"id":"3","meta":{ "a": 1.50, "c": "\u00e9t\u00e9", "p": "a\/b" }}`,
		`{"id":"4","meta":{"note":"tab\u0009here","q":"\"","e":"\ud83d\ude00"}}`,
		`{"id":"5","meta":{"b":2,"a":1e2}}`,
	}
	want := []string{
		`id=1 meta={"b":1} meta.b=1`,
		`id=2 tags=["x",{"k":"v"}]`,
		`id=3 meta={"a":1.50,"c":"été","p":"a/b"} meta.a=1.50 meta.c=été meta.p=a/b`,
		`id=4 meta={"note":"tab\there","q":"\"","e":"😀"} meta.note=tab	here meta.q=" meta.e=😀`,
		`id=5 meta={"b":2,"a":1e2} meta.b=2 meta.a=1e2`,
	}
	cells := func(rows []string, keep func(string) bool) []string {
		var out []string
		for _, r := range rows {
			var kept []string
			for _, f := range strings.Split(r, " ") {
				if keep(f) {
					kept = append(kept, f)
				}
			}
			out = append(out, strings.Join(kept, " "))
		}
		return out
	}
	notProvenance := func(f string) bool { return !strings.HasPrefix(f, "__") && !strings.HasSuffix(f, "=NULL") }
	var recs []*kgo.Record
	for _, v := range values {
		recs = append(recs, raw("t", 0, "", v))
	}
	c := startKafka(t, map[string]int32{"t": 1})
	produce(t, c, recs...)
	_, live := mustRead(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"key": "none"}})
	// (cells splits rows at spaces: the values hold none)
	wantRows(t, cells(live, notProvenance), want...)
	_, dump := mustRead(t, kcatDump(t, recs))
	wantRows(t, cells(dump, notProvenance), want...)

	// a key given twice, at any depth, in an array too
	for _, v := range []string{`{"id":"7","m":{"x":{"a":1,"a":2}}}`, `{"id":"8","l":[{"a":1},{"a":1,"\u0061":2}]}`} {
		c := startKafka(t, map[string]int32{"t": 1})
		produce(t, c, raw("t", 0, "", v))
		in, rows := mustRead(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"bad_records": "report", "key": "none"}})
		if len(rows) != 0 || len(in.BadRecords) != 1 || !strings.Contains(in.BadRecords[0].Reason, `key "a" appears twice in one object`) {
			t.Errorf("%s: rows %v, bad records %+v", v, rows, in.BadRecords)
		}
	}
}
