package kafka

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/valyala/fastjson"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/internal/jsontext"
)

// This file is what the kafka and kcat kinds share: how one record of a
// topic partition becomes a row (decode), the spool both write their
// decoded rows to while they learn the columns, and the records built from
// the spool (ReadRows). The kinds differ only in where the records come
// from: a broker (kafka.go) or a kcat -J dump (kcat.go).

// Provenance columns of a Kafka record, after its value and key columns
// (rule 4 of the Source contract). __file is "topic[partition]" and __line
// the offset, so a location reads topic[partition]@offset (LocationOffset).
const (
	PartitionColumn = "__partition" // int32
	OffsetColumn    = "__offset"    // int64
	TimestampColumn = "__timestamp" // timestamp[ms, UTC]: the record's timestamp
	// HeaderPrefix starts the column of a record header: __header_<name>,
	// the value as text.
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
	switch br := o.String("bad_records", "fail"); br {
	case "fail":
	case "report":
		ro.report = true
	default:
		o.Fail(fmt.Errorf("option bad_records: %q: want fail or report", br))
	}
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

// column owners: a column comes from the value, the key or a header.
const (
	ownValue = iota
	ownKey
	ownHeader
)

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

// colAt is a column's first appearance in a partition: the offset of the
// record and the cell's position in it.
type colAt struct {
	col    int
	offset int64
	pos    int
}

// partFirst records, for one partition, the columns in order of first
// appearance (records of a partition are decoded in offset order).
type partFirst struct {
	seen  []bool
	order []colAt
}

// recordDecoder turns records into spooled rows, learning the columns. A
// decoder is used by one goroutine and decodes every record of the
// partitions it is given (so their order is kept).
type recordDecoder struct {
	opt     recordOptions
	cols    *kafkaColumns
	local   map[string]localCol // names this decoder has resolved
	shape   []shapeCol          // the columns of the last record, by position
	parser  fastjson.Parser     // values are copied to the chunk before the next parse
	chunk   chunkRows           // the rows of the chunk being decoded
	stamp   []uint32            // per column: the record that last set it
	gen     uint32
	name    []byte // scratch for a flattened name
	text    []byte // scratch: the text of a value
	scratch []byte // scratch: the text of a number in an array
	bad     []badAt
	first   map[partitionRef]*partFirst
	cur     *partFirst
	err     error  // set inside fastjson's Visit
	plain   bool   // the JSON being decoded is plainASCII
	what    string // "value" or "key", for messages
	part    partitionRef
	offset  int64
	pos     int
}

type localCol struct{ col, owner int }

type shapeCol struct {
	name []byte
	localCol
}

type badAt struct {
	part   partitionRef
	offset int64
	reason string
}

func newRecordDecoder(opt recordOptions, cols *kafkaColumns) *recordDecoder {
	return &recordDecoder{opt: opt, cols: cols, local: map[string]localCol{}, first: map[partitionRef]*partFirst{}}
}

// errBad is a reason a record is bad, as opposed to a failure of the read.
type errBad struct{ reason string }

func (e *errBad) Error() string { return e.reason }

func bad(format string, args ...any) error { return &errBad{fmt.Sprintf(format, args...)} }

// decode appends r's values to the chunk's columns (the row is ended by
// the caller, or rolled back when decode fails). It returns an *errBad for a record that
// does not decode, or an ErrRecord error for fields that cannot be
// columns at all.
func (d *recordDecoder) decode(r *kgo.Record) error {
	d.gen++
	d.offset, d.pos = r.Offset, 0
	switch d.opt.key {
	case payloadJSON:
		if r.Key != nil {
			if err := d.json(r.Key, "key", "key."); err != nil {
				return err
			}
		}
	case payloadString:
		if r.Key != nil {
			if !utf8.Valid(r.Key) {
				return bad("key is not UTF-8 text (key: string); read it with key: bytes")
			}
			if err := d.add("key", false, ownKey, r.Key, false); err != nil {
				return err
			}
		}
	case payloadBytes:
		if r.Key != nil {
			if err := d.add("key", true, ownKey, r.Key, false); err != nil {
				return err
			}
		}
	}
	switch d.opt.value {
	case payloadJSON:
		// A null value (a tombstone) is a row whose value columns are all
		// NULL: kept, so null_ids shows it rather than it vanishing.
		if r.Value != nil {
			if err := d.json(r.Value, "value", ""); err != nil {
				return err
			}
		}
	case payloadString:
		if r.Value != nil && !utf8.Valid(r.Value) {
			return bad("value is not UTF-8 text (value: string); read it with value: bytes")
		}
		if err := d.add("value", false, ownValue, r.Value, r.Value == nil); err != nil {
			return err
		}
	case payloadBytes:
		if err := d.add("value", true, ownValue, r.Value, r.Value == nil); err != nil {
			return err
		}
	}
	for _, h := range r.Headers {
		if !utf8.Valid(h.Value) {
			return bad("header %q is not UTF-8 text", h.Key)
		}
		if err := d.add(HeaderPrefix+h.Key, false, ownHeader, h.Value, h.Value == nil); err != nil {
			return err
		}
	}
	return nil
}

// plainASCII reports whether b holds only printable ASCII: no escape, no
// control character, nothing that needs UTF-8 validation.
func plainASCII(b []byte) bool {
	// sixteen bytes at a time: a byte ≥ 0x80, < 0x20 or equal to '\\' sets
	// its high bit in bad (the classic "has less" and "has zero" word tricks)
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	bad := func(x uint64) uint64 {
		esc := x ^ (0x5c * ones)
		return x | ((x - 0x20*ones) &^ x) | ((esc - ones) &^ esc)
	}
	for len(b) >= 16 {
		if (bad(binary.LittleEndian.Uint64(b))|bad(binary.LittleEndian.Uint64(b[8:])))&highs != 0 {
			return false
		}
		b = b[16:]
	}
	if len(b) >= 8 {
		if bad(binary.LittleEndian.Uint64(b))&highs != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// json decodes a JSON object into cells named prefix+field (nested objects
// also as prefix+field.sub…). JSON is read as RFC 8259 defines it: a value
// with an escape, a control character or a non-ASCII byte is validated in
// full (valid UTF-8, fastjson.Validate) before it is parsed; any other
// value is parsed at once (fastjson.Parse, which checks its structure) and
// each number's text is checked against the RFC's grammar, the one thing
// Parse is lenient about (it takes NaN, Inf, 01, 1.).
func (d *recordDecoder) json(b []byte, what, prefix string) error {
	if d.plain = plainASCII(b); !d.plain {
		if !utf8.Valid(b) {
			return bad("%s is not UTF-8 text, so not JSON (%s: json)", what, what)
		}
		if err := fastjson.ValidateBytes(b); err != nil {
			return bad("%s is not JSON (%s: json): %s", what, what, shorten(err.Error()))
		}
		if esc, ok := jsontext.LoneSurrogate(b); ok {
			return bad("%s is not JSON text of Unicode characters (%s: json): the escape %s is half of a UTF-16 surrogate pair, which names no character (RFC 8259 section 8.2)", what, what, esc)
		}
	}
	v, err := d.parser.ParseBytes(b)
	if err != nil {
		return bad("%s is not JSON (%s: json): %s", what, what, shorten(err.Error()))
	}
	o, err := v.Object()
	if err != nil {
		return bad("%s is JSON but not an object (%s: json): a %s, starts %s", what, what, v.Type(), quotePrefix(b))
	}
	owner := ownValue
	if prefix != "" {
		owner = ownKey
	}
	d.name = append(d.name[:0], prefix...)
	d.err = nil
	d.what = what
	d.object(o, owner)
	return d.err
}

func (d *recordDecoder) object(o *fastjson.Object, owner int) {
	base := len(d.name)
	o.Visit(func(k []byte, v *fastjson.Value) {
		if d.err != nil {
			return
		}
		// a top-level field's name is its key, as the parser holds it
		name := k
		if base > 0 {
			d.name = append(d.name[:base], k...)
			name = d.name
		}
		// The value first, then its column: a field whose value is bad
		// names no column.
		val, null, isObject := d.value(v)
		if val == nil && !null {
			d.err = bad("%s is not JSON (%s: json): field %q: %q is not a JSON number", d.what, d.what, name, d.text)
			return
		}
		cc, err := d.column(name, false, owner)
		if err != nil {
			d.err = err
			return
		}
		if null {
			cc.null()
		} else {
			cc.value(val)
		}
		if isObject {
			obj, _ := v.Object()
			d.name = append(append(d.name[:base], k...), '.')
			d.object(obj, owner)
		}
	})
	d.name = d.name[:base]
}

// value returns a field's value as its cell holds it — a string's text, a
// number as written, true/false, an object or array as compact JSON —
// valid until the next value; null for JSON null; and nil with null false
// for a number RFC 8259 does not allow (fastjson's parse takes NaN, nan,
// Inf, 01, 1.), whose text is then in d.text.
//
// In a plainASCII record a string has no escape, so its value is the text
// between its quotes in fastjson's text of it (MarshalTo), taken without
// the unescaping pass of fastjson's string accessors; a plain record's
// arrays are walked for their numbers, which Parse does not check (a
// record that is not plain was validated in full by fastjson.Validate).
func (d *recordDecoder) value(v *fastjson.Value) (val []byte, null, isObject bool) {
	if d.plain {
		d.text = v.MarshalTo(d.text[:0])
		t := d.text
		switch t[0] {
		case '"':
			return t[1 : len(t)-1], false, false
		case '{':
			return t, false, true
		case '[':
			if !numbersIn(v, &d.scratch) {
				d.text = append(d.text[:0], d.scratch...) // the number, for the message
				return nil, false, false
			}
			return t, false, false
		case 't', 'f':
			return t, false, false
		}
		if string(t) == "null" {
			return nil, true, false
		}
		if !jsonNumber(t) {
			return nil, false, false
		}
		return t, false, false
	}
	switch v.Type() {
	case fastjson.TypeString:
		s, _ := v.StringBytes()
		return s, false, false
	case fastjson.TypeNull:
		return nil, true, false
	case fastjson.TypeNumber:
		d.text = v.MarshalTo(d.text[:0])
		if !jsonNumber(d.text) {
			return nil, false, false
		}
		return d.text, false, false
	}
	// true/false as written, nested JSON as compact text
	d.text = v.MarshalTo(d.text[:0])
	return d.text, false, v.Type() == fastjson.TypeObject
}

// numbersIn reports whether every number in array or object v, at any
// depth, is one RFC 8259 allows; buf is scratch.
func numbersIn(v *fastjson.Value, buf *[]byte) bool {
	switch v.Type() {
	case fastjson.TypeNumber:
		*buf = v.MarshalTo((*buf)[:0])
		return jsonNumber(*buf)
	case fastjson.TypeArray:
		a, _ := v.Array()
		for _, e := range a {
			if !numbersIn(e, buf) {
				return false
			}
		}
	case fastjson.TypeObject:
		o, _ := v.Object()
		ok := true
		o.Visit(func(_ []byte, e *fastjson.Value) { ok = ok && numbersIn(e, buf) })
		return ok
	}
	return true
}

// jsonNumber reports whether b is a number as RFC 8259 section 6 writes
// it: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(b []byte) bool {
	i, n := 0, len(b)
	digits := func() int {
		j := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < n && b[i] == '-' {
		i++
	}
	if i < n && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < n && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == n
}

// add appends v (null when null) to column name.
func (d *recordDecoder) add(name string, isBinary bool, owner int, v []byte, null bool) error {
	d.name = append(d.name[:0], name...)
	cc, err := d.column(d.name, isBinary, owner)
	if err != nil {
		return err
	}
	if null {
		cc.null()
	} else {
		cc.value(v)
	}
	return nil
}

// column returns the chunk's column for name (the record's d.pos-th
// value), found from the last record's shape when it had the same name
// there, else from the decoder's names, else from the shared columns. It
// refuses a name used twice in one record or by both the key and the
// value.
func (d *recordDecoder) column(name []byte, isBinary bool, owner int) (*chunkColumn, error) {
	var lc localCol
	if d.pos < len(d.shape) && string(d.shape[d.pos].name) == string(name) {
		lc = d.shape[d.pos].localCol
	} else {
		var ok bool
		if lc, ok = d.local[string(name)]; !ok {
			col, own, err := d.cols.add(string(name), isBinary, owner, d.where)
			if err != nil {
				return nil, err
			}
			lc = localCol{col, own}
			d.local[string(name)] = lc
		}
		if d.pos < len(d.shape) {
			d.shape[d.pos] = shapeCol{append(d.shape[d.pos].name[:0], name...), lc}
		} else {
			d.shape = append(d.shape, shapeCol{append([]byte(nil), name...), lc})
		}
	}
	if lc.owner != owner {
		return nil, fmt.Errorf("%w: %s: column %q comes from both the %s and the %s; load the key with key: json or key: none", ErrRecord, d.where(), name, ownerName(lc.owner), ownerName(owner))
	}
	col := lc.col
	for col >= len(d.stamp) {
		d.stamp = append(d.stamp, 0)
	}
	if d.stamp[col] == d.gen {
		return nil, bad("%s %q appears twice in one record; which value holds is not defined", ownerName(owner), name)
	}
	d.stamp[col] = d.gen
	pf := d.cur
	for col >= len(pf.seen) {
		pf.seen = append(pf.seen, false)
	}
	if !pf.seen[col] {
		pf.seen[col] = true
		pf.order = append(pf.order, colAt{col, d.offset, d.pos})
	}
	d.pos++
	return d.chunk.column(col, isBinary), nil
}

func ownerName(o int) string {
	switch o {
	case ownKey:
		return "key field"
	case ownHeader:
		return "header"
	}
	return "field"
}

func (d *recordDecoder) where() string {
	return fmt.Sprintf("%s@%d", d.part.file(), d.offset)
}

// shorten cuts a library's message (which may quote the rest of a value)
// to a length fit for an exception row.
func shorten(s string) string {
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}

// quotePrefix shows the first bytes of a value for a message.
func quotePrefix(b []byte) string {
	if len(b) > 40 {
		return strconv.Quote(string(b[:40])) + "…"
	}
	return strconv.Quote(string(b))
}

// chunkRows holds the rows of the chunk being decoded column by column, in
// Arrow's layout: each column seen in the chunk, the offsets and the
// timestamps. A column a row does not have is null in it. The rows become
// one Arrow record batch (finish) over these buffers, which the spool
// writes out; the buffers are then used again for the next chunk.
type chunkRows struct {
	cols  []*chunkColumn // by column index; kept across chunks (their buffers)
	used  []int          // the columns in this chunk, in order of first sight
	off   []int64
	ts    []int64
	tsBit []byte // validity of ts
	tsN   int    // null timestamps
	rows  int
}

// chunkColumn is one text or binary column of a chunk in the layout of an
// Arrow variable-length binary array (validity bitmap, int32 offsets,
// data): what array.BinaryBuilder builds, appended without its per-value
// checks because the chunk counts its rows.
type chunkColumn struct {
	in    bool // in the chunk being decoded
	bin   bool
	valid []byte
	offs  []int32 // rows+1 entries
	data  []byte
	nulls int
}

// appendBit appends validity bit set for row i of bitmap bm.
func appendBit(bm []byte, i int, set bool) []byte {
	if i&7 == 0 {
		bm = append(bm, 0)
	}
	if set {
		bm[i>>3] |= 1 << (i & 7)
	}
	return bm
}

// value appends a value, null appends a null to the row being decoded.
func (c *chunkColumn) value(v []byte) {
	c.data = append(c.data, v...)
	c.end(true)
}

func (c *chunkColumn) null() { c.end(false) }

// end ends the row's value: the bytes appended to data since the last
// value (none for a null).
func (c *chunkColumn) end(valid bool) {
	c.valid = appendBit(c.valid, len(c.offs)-1, valid)
	if !valid {
		c.nulls++
	}
	c.offs = append(c.offs, int32(len(c.data)))
}

// spoolTimestamp is the type of a record's timestamp (TimestampColumn).
var spoolTimestamp = &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}

// Names of the offset and timestamp columns of a spooled chunk; the value
// columns are named by their column index (kafkaColumns).
const (
	chunkOffset    = "offset"
	chunkTimestamp = "timestamp"
)

// maxChunkData bounds the bytes of one column of a chunk (int32 offsets).
const maxChunkData = 1<<31 - 1

// endRow ends r's row, to n of whose columns decode appended a value (at
// most one each): a column the record does not have is null in it.
func (c *chunkRows) endRow(r *kgo.Record, n int) {
	c.rows++
	if n < len(c.used) {
		for _, col := range c.used {
			if cc := c.cols[col]; len(cc.offs) <= c.rows {
				cc.end(false)
			}
		}
	}
	c.off = append(c.off, r.Offset)
	ms, ok := recordTime(r)
	c.tsBit = appendBit(c.tsBit, c.rows-1, ok)
	if ok {
		c.ts = append(c.ts, ms)
	} else {
		c.ts = append(c.ts, 0)
		c.tsN++
	}
}

// rollback takes back what decode appended of a record that did not
// decode. A column first seen in it stays in the chunk, null in every row.
func (c *chunkRows) rollback() {
	i := c.rows
	for _, col := range c.used {
		cc := c.cols[col]
		if len(cc.offs) > i+1 {
			if cc.valid[i>>3]&(1<<(i&7)) == 0 {
				cc.nulls--
			}
			cc.valid[i>>3] &^= 1 << (i & 7)
			cc.valid = cc.valid[:(i+7)/8]
			cc.offs = cc.offs[:i+1]
		}
		cc.data = cc.data[:cc.offs[i]]
	}
}

// column returns column col of the chunk, adding it on first sight (null
// in the rows before).
func (c *chunkRows) column(col int, isBinary bool) *chunkColumn {
	for col >= len(c.cols) {
		c.cols = append(c.cols, nil)
	}
	cc := c.cols[col]
	if cc != nil && cc.in {
		return cc
	}
	if cc == nil {
		cc = &chunkColumn{}
		c.cols[col] = cc
	}
	cc.in, cc.bin, cc.nulls = true, isBinary, c.rows
	cc.valid = append(cc.valid[:0], make([]byte, (c.rows+7)/8)...)
	cc.offs = append(cc.offs[:0], make([]int32, c.rows+1)...)
	cc.data = cc.data[:0]
	c.used = append(c.used, col)
	return cc
}

// finish returns the chunk's rows as one record batch — the columns in
// order of first sight, named by their index, then the offsets and the
// timestamps — over the chunk's buffers: valid until the next chunk
// starts. It refuses a column of more than maxChunkData bytes.
func (c *chunkRows) finish() (arrow.RecordBatch, error) {
	fields := make([]arrow.Field, 0, len(c.used)+2)
	arrs := make([]arrow.Array, 0, len(c.used)+2)
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	n := c.rows
	for _, col := range c.used {
		cc := c.cols[col]
		if len(cc.offs) != n+1 || len(cc.valid) != (n+7)/8 {
			return nil, fmt.Errorf("%w: column %d of a chunk holds %d values for %d records (a record decoded in part and not taken back)", ErrRead, col, len(cc.offs)-1, n)
		}
		if len(cc.data) > maxChunkData {
			return nil, fmt.Errorf("%w: column %d holds %d bytes in %d records, more than one chunk can", ErrRead, col, len(cc.data), n)
		}
		t := arrow.DataType(arrow.BinaryTypes.String)
		if cc.bin {
			t = arrow.BinaryTypes.Binary
		}
		data := array.NewData(t, n, []*memory.Buffer{
			memory.NewBufferBytes(cc.valid),
			memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(cc.offs)),
			memory.NewBufferBytes(cc.data)}, nil, cc.nulls, 0)
		arrs = append(arrs, array.MakeFromData(data))
		data.Release()
		fields = append(fields, arrow.Field{Name: strconv.Itoa(col), Type: t, Nullable: true})
	}
	off := array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil,
		memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.off))}, nil, 0, 0)
	ts := array.NewData(spoolTimestamp, n, []*memory.Buffer{memory.NewBufferBytes(c.tsBit),
		memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(c.ts))}, nil, c.tsN, 0)
	arrs = append(arrs, array.MakeFromData(off), array.MakeFromData(ts))
	off.Release()
	ts.Release()
	fields = append(fields,
		arrow.Field{Name: chunkOffset, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: chunkTimestamp, Type: spoolTimestamp, Nullable: true})
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n)), nil
}

// reset empties the chunk, keeping its buffers for the next.
func (c *chunkRows) reset() {
	for _, col := range c.used {
		c.cols[col].in = false
	}
	c.used = c.used[:0]
	c.off, c.ts, c.tsBit = c.off[:0], c.ts[:0], c.tsBit[:0]
	c.tsN, c.rows = 0, 0
}

// spool holds decoded rows until every column is known: chunks, each the
// rows of one partition in offset order as one record batch (the columns
// the chunk has), indexed per partition. A chunk stays in memory while the
// read's chunks in memory (spoolMemory, shared by its spools) fit their
// bound; past it, a chunk goes to the spool's temporary file as an Arrow
// IPC stream. A spool is written by one goroutine, then read once.
type spool struct {
	mem    *spoolMemory
	f      *os.File // created with the first chunk that does not fit in memory
	w      *bufio.Writer
	size   int64
	chunks map[partitionRef][]chunk
}

// chunk is one spooled chunk: in memory (rec), or at pos in file f.
type chunk struct {
	rec      arrow.RecordBatch
	f        *os.File
	pos, len int64
	rows     int
}

// spoolMemory bounds the bytes of the chunks a read keeps in memory.
type spoolMemory struct {
	limit int64
	used  atomic.Int64
}

// defaultSpoolMemory is the bound of a read's chunks in memory when the Go
// heap has no soft limit (a run always sets one: package memory).
const defaultSpoolMemory = 1 << 30

// newSpoolMemory bounds a read's chunks in memory to half the Go heap's
// soft limit (runtime/debug.SetMemoryLimit, which a run sets to its
// budget's Go share), or to defaultSpoolMemory without one. Measured on 5
// M records (README, Kafka inputs, Performance): writing the chunks to the
// file and reading them back took about a sixth of the read's CPU.
func newSpoolMemory() *spoolMemory {
	l := debug.SetMemoryLimit(-1)
	if l <= 0 || l == math.MaxInt64 {
		l = 2 * defaultSpoolMemory
	}
	return &spoolMemory{limit: l / 2}
}

// take reserves n bytes if they fit.
func (m *spoolMemory) take(n int64) bool {
	if m.used.Add(n) <= m.limit {
		return true
	}
	m.used.Add(-n)
	return false
}

func newSpool(mem *spoolMemory) *spool {
	return &spool{mem: mem, chunks: map[partitionRef][]chunk{}}
}

// close removes the spool file and drops the chunks in memory (Go memory,
// freed once nothing refers to it).
func (s *spool) close() {
	if s == nil {
		return
	}
	s.chunks = nil
	if s.f == nil {
		return
	}
	s.f.Close()
	os.Remove(s.f.Name())
	s.f = nil
}

// Write appends to the spool file (the IPC writer's io.Writer).
func (s *spool) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.size += int64(n)
	return n, err
}

// flush writes out what the spool file's buffer holds.
func (s *spool) flush() error {
	if s.w == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("%w: write the spool file: %w", ErrRead, err)
	}
	return nil
}

// writeChunk keeps rec, rows of p, as one chunk: a copy in memory when it
// fits, else written to the spool file. rec's buffers are the decoder's
// and are used again once writeChunk returns.
func (s *spool) writeChunk(p partitionRef, rec arrow.RecordBatch) error {
	if n := recordBytes(rec); s.mem.take(n) {
		s.chunks[p] = append(s.chunks[p], chunk{rec: cloneRecord(rec), rows: int(rec.NumRows())})
		return nil
	}
	if s.f == nil {
		f, err := os.CreateTemp("", "reconcile-kafka-*.spool")
		if err != nil {
			return fmt.Errorf("%w: a spool file for the decoded records: %w", ErrRead, err)
		}
		s.f, s.w = f, bufio.NewWriterSize(f, 1<<20)
	}
	pos := s.size
	w := ipc.NewWriter(s, ipc.WithSchema(rec.Schema()))
	err := w.Write(rec)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: write the spool file: %w", ErrRead, err)
	}
	s.chunks[p] = append(s.chunks[p], chunk{f: s.f, pos: pos, len: s.size - pos, rows: int(rec.NumRows())})
	return nil
}

// recordBytes is the size of rec's buffers.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		for _, b := range c.Data().Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
	}
	return n
}

// cloneRecord copies rec's buffers (flat arrays only: a chunk's columns).
func cloneRecord(rec arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := c.Data()
		bufs := make([]*memory.Buffer, len(d.Buffers()))
		for j, b := range d.Buffers() {
			if b != nil {
				bufs[j] = memory.NewBufferBytes(bytes.Clone(b.Bytes()))
			}
		}
		nd := array.NewData(d.DataType(), d.Len(), bufs, nil, d.NullN(), d.Offset())
		cols[i] = array.MakeFromData(nd)
		nd.Release()
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// read returns the record batch of ch (released by the caller).
func (ch chunk) read() (arrow.RecordBatch, error) {
	if ch.rec != nil {
		ch.rec.Retain()
		return ch.rec, nil
	}
	r, err := ipc.NewReader(io.NewSectionReader(ch.f, ch.pos, ch.len), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, fmt.Errorf("%w: read the spool file: %w", ErrRead, err)
	}
	defer r.Release()
	if !r.Next() {
		err := r.Err()
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: read the spool file: %w", ErrRead, err)
	}
	rec := r.RecordBatch()
	rec.Retain()
	return rec, nil
}

// decodeChunk decodes recs of p into the spool, collecting bad records
// (bad_records: report) or failing on the first. The rows become chunks
// of at most BatchBytes of record bytes each (a chunk, and the batch it
// becomes, stays bounded however large the records). It returns the
// number of rows spooled.
func (d *recordDecoder) decodeChunk(s *spool, p partitionRef, recs []*kgo.Record) (int, error) {
	d.part = p
	if d.cur = d.first[p]; d.cur == nil {
		d.cur = &partFirst{}
		d.first[p] = d.cur
	}
	c := &d.chunk
	c.reset()
	defer c.reset()
	rows, size := 0, 0
	for _, r := range recs {
		err := d.decode(r)
		if err == nil {
			c.endRow(r, d.pos)
			if size += recordSize(r); size >= sources.BatchBytes {
				if err := d.writeChunk(s, p); err != nil {
					return 0, err
				}
				rows, size = rows+c.rows, 0
				c.reset()
			}
			continue
		}
		c.rollback()
		var be *errBad
		if !errors.As(err, &be) {
			return 0, err
		}
		if !d.opt.report {
			return 0, fmt.Errorf("%w: %s@%d: %s (bad_records: report lists such records instead of stopping)", ErrRecord, p.file(), r.Offset, be.reason)
		}
		if len(d.bad) >= maxBadRecords {
			return 0, fmt.Errorf("%w: more than %d records do not decode (the last at %s@%d: %s): is the value: option right for this topic?", ErrRecord, maxBadRecords, p.file(), r.Offset, be.reason)
		}
		d.bad = append(d.bad, badAt{p, r.Offset, be.reason})
	}
	if err := d.writeChunk(s, p); err != nil {
		return 0, err
	}
	return rows + c.rows, nil
}

// writeChunk writes the chunk's rows, if any, to the spool as one chunk of p.
func (d *recordDecoder) writeChunk(s *spool, p partitionRef) error {
	if d.chunk.rows == 0 {
		return nil
	}
	rec, err := d.chunk.finish()
	if err != nil {
		return err
	}
	defer rec.Release()
	return s.writeChunk(p, rec)
}

// badRecords returns the bad records of decs in (topic, partition,
// offset) order.
func badRecords(decs []*recordDecoder) []sources.BadRecord {
	var all []badAt
	for _, d := range decs {
		all = append(all, d.bad...)
	}
	slices.SortFunc(all, func(a, b badAt) int {
		return cmp.Or(comparePartitions(a.part, b.part), cmp.Compare(a.offset, b.offset))
	})
	out := make([]sources.BadRecord, len(all))
	for i, b := range all {
		out[i] = sources.BadRecord{Location: fmt.Sprintf("%s@%d", b.part.file(), b.offset), Reason: b.reason}
	}
	return out
}

// spooledRecords returns the records the decoders decs wrote to their
// spools, partitions in parts order, with the columns in order of first
// appearance in (topic, partition, offset) order, then __partition,
// __offset, __timestamp and the header columns (in the same order). Each
// chunk's arrays become a batch's columns as they are (a column the chunk
// does not have is all null). The spools are removed once the records are
// read (or released).
func spooledRecords(ctx context.Context, spools []*spool, decs []*recordDecoder, cols *kafkaColumns, parts []partitionRef, opt sources.ReadOptions) (array.RecordReader, error) {
	chunks := map[partitionRef][]chunk{}
	firsts := map[partitionRef]*partFirst{}
	for _, sp := range spools {
		if err := sp.flush(); err != nil {
			return nil, err
		}
		for p, cs := range sp.chunks {
			chunks[p] = append(chunks[p], cs...)
		}
	}
	for _, d := range decs {
		for p, f := range d.first {
			firsts[p] = f
		}
	}
	var order, headers []int
	placed := make([]bool, len(cols.names))
	for _, p := range parts {
		if f := firsts[p]; f != nil {
			for _, c := range f.order {
				if placed[c.col] {
					continue
				}
				placed[c.col] = true
				if cols.owner[c.col] == ownHeader {
					headers = append(headers, c.col)
				} else {
					order = append(order, c.col)
				}
			}
		}
	}
	var fields []arrow.Field
	pos := make([]int, len(cols.names)) // column index → field position
	add := func(col int) {
		t := arrow.DataType(arrow.BinaryTypes.String)
		if cols.binary[col] {
			t = arrow.BinaryTypes.Binary
		}
		pos[col] = len(fields)
		fields = append(fields, arrow.Field{Name: cols.names[col], Type: t, Nullable: true})
	}
	for _, c := range order {
		add(c)
	}
	prov := len(fields)
	fields = append(fields,
		arrow.Field{Name: PartitionColumn, Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: OffsetColumn, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: TimestampColumn, Type: spoolTimestamp, Nullable: true})
	for _, c := range headers {
		add(c)
	}
	schema := arrow.NewSchema(fields, nil)
	closeAll := func() {
		for _, sp := range spools {
			sp.close()
		}
	}
	return sources.ReadRows(ctx, fields, opt, func(ctx context.Context, w *sources.RowWriter) error {
		defer closeAll()
		arrs := make([]arrow.Array, len(fields))
		for _, p := range parts {
			file := p.file()
			for _, ch := range chunks[p] {
				rec, err := ch.read()
				if err != nil {
					return err
				}
				n := rec.NumRows()
				clear(arrs)
				for i, f := range rec.Schema().Fields() {
					switch f.Name {
					case chunkOffset:
						arrs[prov+1] = rec.Column(i)
					case chunkTimestamp:
						arrs[prov+2] = rec.Column(i)
					default:
						col, err := strconv.Atoi(f.Name)
						if err != nil || col < 0 || col >= len(pos) {
							rec.Release()
							return fmt.Errorf("%w: read the spool file: a chunk column %q", ErrRead, f.Name)
						}
						arrs[pos[col]] = rec.Column(i)
					}
				}
				var made []arrow.Array
				pb := array.NewInt32Builder(memory.DefaultAllocator)
				pb.Reserve(int(n))
				for range n {
					pb.UnsafeAppend(p.Partition)
				}
				arrs[prov] = pb.NewArray()
				pb.Release()
				made = append(made, arrs[prov])
				for j, a := range arrs {
					if a == nil {
						arrs[j] = array.MakeArrayOfNull(memory.DefaultAllocator, fields[j].Type, int(n))
						made = append(made, arrs[j])
					}
				}
				out := array.NewRecordBatch(schema, arrs, n)
				err = w.AppendBatchAt(out, file, arrs[prov+1].(*array.Int64))
				out.Release()
				for _, a := range made {
					a.Release()
				}
				rec.Release()
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}
