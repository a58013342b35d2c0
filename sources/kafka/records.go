package kafka

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/sources"
)

// What the kafka and kcat kinds share: the record options and the columns
// seen (this file), how one record of a topic partition becomes a row
// (decode.go), the chunks of decoded rows (chunk.go), the spool both write
// them to while they learn the columns and the records built from it with
// sources.ReadRows (spool.go). The kinds differ only in where the records
// come from: a broker (kafka.go, snapshot.go, fetch.go) or a kcat -J dump
// (kcat.go).

// Provenance columns of a Kafka record, after its value and key columns
// (rule 4 of the Source contract). __file is "topic[partition]" and __line
// the offset, so a location reads topic[partition]@offset (LocationOffset).
const (
	PartitionColumn = "__partition" // int32
	OffsetColumn    = "__offset"    // int64
	TimestampColumn = "__timestamp" // timestamp[ms, UTC]: the record's timestamp
	// HeaderPrefix starts the column of a record header: __header_<name>,
	// the value as text. Kafka lets a record carry a header name more than
	// once: when any record of the input does, that column holds, for
	// every record, the JSON array of the record's values in their order
	// (["t-1","t-2"], ["t-3"] for a record with one, null for a null
	// value; NULL for a record without the header), and the input's
	// details list the name under repeated_headers.
	HeaderPrefix = "__header_"
)

// Errors of the kafka and kcat kinds.
var (
	// ErrRecord: a record could not be decoded as its value: or key:
	// option says (and bad_records: is fail), or its fields cannot be
	// columns. The message names topic, partition and offset.
	ErrRecord = fault.Runtime.New("kafka: record")
	// ErrRead: the cluster could not be read (connection, metadata,
	// offsets, fetch), or a kcat dump is not one read of a topic.
	ErrRead = fault.Runtime.New("kafka: read")
)

// maxBadRecords bounds the bad records an input lists with bad_records:
// report; past it the read fails, as a value format that is wrong for the
// whole topic should.
const maxBadRecords = 100_000

// payload is how a record's value or key is read (the value: and key:
// options).
type payload string

const (
	payloadJSON   payload = "json"   // a JSON object: its fields are columns
	payloadString payload = "string" // UTF-8 text: one column
	payloadBytes  payload = "bytes"  // raw bytes: one BLOB column
	payloadNone   payload = "none"   // key only: not loaded
)

// recordOptions are the options the kafka and kcat kinds share.
type recordOptions struct {
	value, key payload
	report     bool // bad_records: report
	declared   []sources.Column
}

func readRecordOptions(o *sources.Options) recordOptions {
	ro := recordOptions{
		value: payload(o.String("value", string(payloadJSON))),
		key:   payload(o.String("key", string(payloadString))),
	}
	switch ro.value {
	case payloadJSON, payloadString, payloadBytes:
	default:
		o.Fail(fmt.Errorf("option value: %q: want json, string or bytes", ro.value))
	}
	switch ro.key {
	case payloadJSON, payloadString, payloadBytes, payloadNone:
	default:
		o.Fail(fmt.Errorf("option key: %q: want json, string, bytes or none", ro.key))
	}
	ro.report = o.BadRecords()
	ro.declared = o.Types()
	return ro
}

// A record of a topic partition is franz-go's kgo.Record, decoded where
// franz-go put it (the kafka kind) or made from a kcat line: Offset, Key
// and Value (nil: null), Headers, and Timestamp, which is no time when
// its milliseconds since the Unix epoch are negative (Kafka's -1 for a
// record without one; recordTime).

// recordSize is r's bytes: key, value and headers.
func recordSize(r *kgo.Record) int {
	n := len(r.Key) + len(r.Value)
	for _, h := range r.Headers {
		n += len(h.Key) + len(h.Value)
	}
	return n
}

// recordTime returns r's timestamp in milliseconds since the Unix epoch,
// and false when it has none (negative: Kafka writes -1).
func recordTime(r *kgo.Record) (int64, bool) {
	ms := r.Timestamp.UnixMilli()
	return ms, ms >= 0
}

// noTime is the timestamp of a record without one (recordTime).
var noTime = time.UnixMilli(-1)

// partitionRef names one partition of a read; parts of a read are in
// (topic, partition) order.
type partitionRef struct {
	Topic     string
	Partition int32
}

func (p partitionRef) file() string { return p.Topic + "[" + strconv.Itoa(int(p.Partition)) + "]" }

func comparePartitions(a, b partitionRef) int {
	return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// column owners: a column comes from the value, the key or a header; a
// header's values in a record that repeats it are spooled in a column of
// their own (headerListName), merged into the header's column when the
// records are read back (spooledRecords).
const (
	ownValue = iota
	ownKey
	ownHeader
	ownHeaderList
)

// headerListName is the spool column of header column name's values in the
// records that repeat it (a JSON array each): a name no field, key or
// header column can have (0xFF is no UTF-8 byte, and those names are
// UTF-8 text or start with __header_).
func headerListName(name string) string { return "\xff" + name }

// kafkaColumns are the columns seen so far, shared by the decoders of one
// read (each decoding its own partitions): a decoder asks here, under the
// lock, only for a name it has not seen itself.
type kafkaColumns struct {
	mu     sync.Mutex
	index  map[string]int
	lower  map[string]string
	names  []string
	binary []bool
	owner  []int
}

func newKafkaColumns() *kafkaColumns {
	return &kafkaColumns{index: map[string]int{}, lower: map[string]string{}}
}

// add returns the index of column name, adding it on first sight, and the
// owner it was added with; it refuses a reserved name or one that differs
// from another only in case. where names the record for a message.
func (c *kafkaColumns) add(name string, isBinary bool, owner int, where func() string) (int, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if col, ok := c.index[name]; ok {
		return col, c.owner[col], nil
	}
	switch {
	case owner != ownHeader && strings.HasPrefix(name, "__"):
		return 0, 0, fmt.Errorf("%w: %s: field %q: names starting with __ are reserved for provenance columns", ErrRecord, where(), name)
	case name == sources.FileColumn || name == sources.LineColumn || name == sources.RowColumn:
		return 0, 0, fmt.Errorf("%w: %s: header %q: reserved for provenance", ErrRecord, where(), name)
	}
	if first, clash := c.lower[strings.ToLower(name)]; clash {
		return 0, 0, fmt.Errorf("%w: %s: column %q differs only in case from %q; DuckDB, which runs the checks, does not tell them apart", ErrRecord, where(), name, first)
	}
	col := len(c.names)
	c.index[name] = col
	c.lower[strings.ToLower(name)] = name
	c.names = append(c.names, name)
	c.binary = append(c.binary, isBinary)
	c.owner = append(c.owner, owner)
	return col, owner, nil
}
