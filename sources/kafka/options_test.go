package kafka_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/internal/kafkatest"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/kafka"
)

func produce(t *testing.T, c *kafkatest.Cluster, recs ...*kgo.Record) {
	t.Helper()
	cl, err := c.Producer()
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, r := range recs {
		if r.Timestamp.IsZero() {
			r.Timestamp = kafkatest.Epoch
		}
	}
	if err := kafkatest.Plain(context.Background(), cl, recs...); err != nil {
		t.Fatal(err)
	}
}

func raw(topic string, partition int32, key, value string) *kgo.Record {
	r := &kgo.Record{Topic: topic, Partition: partition, Value: []byte(value)}
	if key != "" {
		r.Key = []byte(key)
	}
	return r
}

// Columns: the value's top-level fields by name, nested objects also as
// a.b (and the object as its compact JSON text), arrays as JSON text,
// numbers as written, null as NULL; the key as column key, or its fields
// as key.<field> with key: json; a null value (a tombstone) is a row of
// NULLs. Columns are in order of first appearance.
func TestKafkaColumns(t *testing.T) {
	c := startKafka(t, map[string]int32{"t": 1})
	produce(t, c,
		raw("t", 0, "k1", `{"id": "1", "a": {"b": 1.50, "c": {"d": "x"}}, "arr": [1, 2.0], "n": null, "t": true}`),
		raw("t", 0, "", `{"id":"2","later":"Zoë \u00e9 \"q\""}`),
		&kgo.Record{Topic: "t", Key: []byte("k3")})
	_, rows := mustRead(t, sources.Location{URI: c.URI("t")})
	wantRows(t, rows,
		`key=k1 id=1 a={"b":1.50,"c":{"d":"x"}} a.b=1.50 a.c={"d":"x"} a.c.d=x arr=[1,2.0] n=NULL t=true later=NULL __partition=0 __offset=0 __file=t[0] __line=0`,
		`key=NULL id=2 a=NULL a.b=NULL a.c=NULL a.c.d=NULL arr=NULL n=NULL t=NULL later=Zoë é "q" __partition=0 __offset=1 __file=t[0] __line=1`,
		`key=k3 id=NULL a=NULL a.b=NULL a.c=NULL a.c.d=NULL arr=NULL n=NULL t=NULL later=NULL __partition=0 __offset=2 __file=t[0] __line=2`)

	c2 := startKafka(t, map[string]int32{"k": 1})
	produce(t, c2, raw("k", 0, `{"id":"7","region":"EU"}`, `{"amount":1.5}`))
	_, rows = mustRead(t, sources.Location{URI: c2.URI("k"), Options: map[string]any{"key": "json"}})
	wantRows(t, rows, `key.id=7 key.region=EU amount=1.5 __partition=0 __offset=0 __file=k[0] __line=0`)
	_, rows = mustRead(t, sources.Location{URI: c2.URI("k"), Options: map[string]any{"key": "none", "value": "string"}})
	wantRows(t, rows, `value={"amount":1.5} __partition=0 __offset=0 __file=k[0] __line=0`)
	_, rows = mustRead(t, sources.Location{URI: c2.URI("k"), Options: map[string]any{"value": "bytes"}})
	wantRows(t, rows, `key={"id":"7","region":"EU"} value=eyJhbW91bnQiOjEuNX0= __partition=0 __offset=0 __file=k[0] __line=0`)
}

// Values a lenient JSON parser takes but RFC 8259 does not are bad
// records, each named; so are a field given twice and bytes that are not
// UTF-8. Fields that cannot be columns stop the read.
func TestKafkaNotQuiteJSON(t *testing.T) {
	c := startKafka(t, map[string]int32{"t": 1})
	values := []string{
		`{"a":01}`, `{"a":NaN}`, `{"a":1.}`, `{"a":-}`, `{"a":"\x"}`, `{"a":1,"a":2}`, "{\"a\":\"\xff\"}",
		`{"a":1,}`, `[1,2]`, `"text"`, `{"a":1} {"b":2}`, `{"a":"tab	inside"}`,
		// fastjson's parse takes these numbers in a record without escapes
		// too: a field whose value is bad names no column (q)
		`{"q":nan}`, `{"q":NaN}`, `{"q":Inf}`, `{"a":[nan]}`, `{"a":[1,01]}`, `{"a":[{"b":1.}]}`,
	}
	var recs []*kgo.Record
	for _, v := range values {
		recs = append(recs, raw("t", 0, "", v))
	}
	recs = append(recs, raw("t", 0, "", `{"a":-0.5e+3}`))
	produce(t, c, recs...)
	in, rows := mustRead(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"bad_records": "report", "key": "none"}})
	wantRows(t, rows, fmt.Sprintf(`a=-0.5e+3 __partition=0 __offset=%d __file=t[0] __line=%d`, len(values), len(values)))
	if len(in.BadRecords) != len(values) {
		t.Fatalf("%d bad records, want %d: %+v", len(in.BadRecords), len(values), in.BadRecords)
	}
	for i, b := range in.BadRecords {
		if !strings.HasPrefix(b.Location, "t[0]@") || b.Reason == "" {
			t.Errorf("bad record %d: %+v", i, b)
		}
	}
	if r := in.BadRecords[5].Reason; !strings.Contains(r, `"a" appears twice`) {
		t.Errorf("a field given twice: %q", r)
	}

	for _, tc := range []struct{ value, key, want string }{
		{`{"__offset":1}`, "", "reserved for provenance"},
		{`{"key":"x"}`, "k", "comes from both"},
		{`{"Amount":1,"amount":2}`, "", "differs only in case"},
	} {
		c := startKafka(t, map[string]int32{"t": 1})
		produce(t, c, raw("t", 0, tc.key, tc.value))
		_, _, err := readTable(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"bad_records": "report"}})
		if !errors.Is(err, kafka.ErrRecord) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "t[0]@0") {
			t.Errorf("%s: err = %v, want %q naming t[0]@0", tc.value, err, tc.want)
		}
	}
}

// Several topics and partitions read in (topic, partition) order; start
// and end as offsets or instants bound the read; bounds that cannot be
// read exactly are refused before any record is.
func TestKafkaBounds(t *testing.T) {
	c := startKafka(t, map[string]int32{"a": 2, "b": 1})
	for i := 0; i < 4; i++ {
		at := kafkatest.Epoch.Add(time.Duration(i) * time.Hour)
		r0, r1, rb := raw("a", 0, "", `{"i":0}`), raw("a", 1, "", `{"i":1}`), raw("b", 0, "", `{"i":2}`)
		r0.Timestamp, r1.Timestamp, rb.Timestamp = at, at, at
		produce(t, c, r1, rb, r0)
	}
	uri := strings.Replace(c.URI("b"), "/b", "/b,a", 1)
	in, rows := mustRead(t, sources.Location{URI: uri, Options: map[string]any{"start": "a:0:1,a:1:2,b:0:3", "end": "a:0:3,a:1:4,b:0:4"}})
	wantRows(t, rows,
		"i=0 __partition=0 __offset=1 __file=a[0] __line=1",
		"i=0 __partition=0 __offset=2 __file=a[0] __line=2",
		"i=1 __partition=1 __offset=2 __file=a[1] __line=2",
		"i=1 __partition=1 __offset=3 __file=a[1] __line=3",
		"i=2 __partition=0 __offset=3 __file=b[0] __line=3")
	if got := strings.Join(in.Details["topics"].([]string), ","); got != "a,b" {
		t.Errorf("topics %s", got)
	}
	_, rows = mustRead(t, sources.Location{URI: c.URI("a"), Options: map[string]any{
		"start": kafkatest.Epoch.Add(2 * time.Hour).Format(time.RFC3339), "end": map[string]any{"0": 4, "1": 3}}})
	wantRows(t, rows,
		"i=0 __partition=0 __offset=2 __file=a[0] __line=2",
		"i=0 __partition=0 __offset=3 __file=a[0] __line=3",
		"i=1 __partition=1 __offset=2 __file=a[1] __line=2")
	_, rows = mustRead(t, sources.Location{URI: c.URI("b"), Options: map[string]any{"topic_regex": "", "end": kafkatest.Epoch.Add(time.Hour).Format(time.RFC3339)}})
	wantRows(t, rows, "i=2 __partition=0 __offset=0 __file=b[0] __line=0")
	_, rows = mustRead(t, sources.Location{URI: "kafka://" + c.Addr + "/", Options: map[string]any{"topic_regex": "[b-z]", "start": "0:3"}})
	wantRows(t, rows, "i=2 __partition=0 __offset=3 __file=b[0] __line=3")

	for _, tc := range []struct {
		opts map[string]any
		uri  string
		want string
	}{
		{map[string]any{"end": "0:5,1:4"}, c.URI("a"), "past the last stable offset"},
		{map[string]any{"start": "0:3,1:1", "end": "0:2,1:4"}, c.URI("a"), "after the end offset"},
		{map[string]any{"start": "0:1"}, c.URI("a"), "no offset for partition a[1]"},
		{map[string]any{"start": "0:0,1:0,2:0"}, c.URI("a"), "which the read does not have"},
		{nil, c.URI("nope"), `topic "nope" does not exist`},
	} {
		_, _, err := readTable(t, sources.Location{URI: tc.uri, Options: tc.opts})
		if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.opts, err, tc.want)
		}
	}
}

// The opener checks every option without any I/O.
func TestKafkaOptions(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		opts map[string]any
		want string
	}{
		{"kafka://h:9092/t", map[string]any{"isolation": "serializable"}, "isolation"},
		{"kafka://h:9092/t", map[string]any{"value": "avro"}, "option value"},
		{"kafka://h:9092/t", map[string]any{"start": "yesterday"}, "option start"},
		{"kafka://h:9092/t", map[string]any{"end": "2026-11-26T12:00:00"}, "RFC 3339"},
		{"kafka://h:9092/t", map[string]any{"bad_records": "skip"}, "bad_records"},
		{"kafka://h:9092/t", map[string]any{"delimiter": ";"}, "unknown option(s) delimiter"},
		{"kafka://h:9092/", nil, "no topic"},
		{"kafka:///t", nil, "no broker"},
		{"kafka://u:p@h:9092/t", nil, "sasl_mechanism"},
		{"kafka://u:p@h:9092/t", map[string]any{"sasl_mechanism": "GSSAPI"}, "sasl_mechanism"},
		{"kafka://h:9092/t,u", map[string]any{"start": "0:1"}, "exactly one topic"},
		{"kafka://h:9092/t?isolation=read_uncommitted", map[string]any{"isolation": "read_committed"}, "given twice"},
		{"kafka://h:9092/t", map[string]any{"tls_cert_file": "c.pem"}, "go together"},
	} {
		_, err := sources.Open(sources.Location{Role: "sink", URI: tc.uri, Options: tc.opts})
		if !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: err = %v, want %q", tc.uri, tc.opts, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), ":p@") {
			t.Errorf("%s: the error shows the password: %v", tc.uri, err)
		}
	}
	if _, err := sources.Open(sources.Location{Role: "sink", URI: "kafka://b1:9092,b2/t1,t2?isolation=read_uncommitted&start=earliest"}); err != nil {
		t.Errorf("two brokers, two topics, URI parameters: %v", err)
	}
}

// A \u escape that is half of a UTF-16 surrogate pair names no character
// (RFC 8259 section 8.2): fastjson kept it as the six characters written,
// so {"a":"x\ud800"} loaded as the text x\ud800 — equal to a CSV value of
// those characters (found by a reviewer). Each is a bad record now; a
// whole pair is its character, and an escaped backslash before "ud800" is
// that text.
func TestKafkaLoneSurrogate(t *testing.T) {
	c := startKafka(t, map[string]int32{"t": 1})
	bads := []string{`{"a":"x\ud800"}`, `{"a":"\udc00"}`, `{"a":"\ud800\u0041"}`, `{"a":"\ud800\ud800"}`, `{"a":"\uDBFFx"}`}
	var recs []*kgo.Record
	for _, v := range bads {
		recs = append(recs, raw("t", 0, "", v))
	}
	recs = append(recs, raw("t", 0, "", `{"a":"\ud83d\ude00 \\ud800"}`))
	produce(t, c, recs...)
	in, rows := mustRead(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"bad_records": "report", "key": "none"}})
	wantRows(t, rows, fmt.Sprintf(`a=😀 \ud800 __partition=0 __offset=%d __file=t[0] __line=%d`, len(bads), len(bads)))
	if len(in.BadRecords) != len(bads) {
		t.Fatalf("%d bad records, want %d: %+v", len(in.BadRecords), len(bads), in.BadRecords)
	}
	for i, b := range in.BadRecords {
		if !strings.Contains(b.Reason, "half of a UTF-16 surrogate pair") || !strings.Contains(b.Reason, `\u`) {
			t.Errorf("bad record %d (%s): %q", i, bads[i], b.Reason)
		}
	}
}

// An end offset inside a record batch cuts the batch there: records of
// one batch (a producer lingering until all five are buffered) read to
// end offset 3 give offsets 0–2.
func TestKafkaEndInsideBatch(t *testing.T) {
	c := startKafka(t, map[string]int32{"t": 1})
	cl, err := c.Producer(kgo.ProducerLinger(200 * time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for i := range 5 {
		recs = append(recs, kafkatest.Record("t", 0, "i", i))
	}
	if err := kafkatest.Plain(context.Background(), cl, recs...); err != nil {
		t.Fatal(err)
	}
	_, rows := mustRead(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"end": "0:3"}})
	wantRows(t, rows,
		"i=0 __partition=0 __offset=0 __file=t[0] __line=0",
		"i=1 __partition=0 __offset=1 __file=t[0] __line=1",
		"i=2 __partition=0 __offset=2 __file=t[0] __line=2")
}
