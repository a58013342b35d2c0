package sources

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/valyala/fastjson"

	"github.com/reconcile-dev/reconcile/internal/fault"
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

// Location forms (Input.LocationForm): how an exception's location renders
// from __file and __line.
const (
	// LocationFileLine is file:line (every file and database kind; "").
	LocationFileLine = ""
	// LocationOffset is topic[partition]@offset: __file is topic[partition],
	// __line the offset.
	LocationOffset = "topic[partition]@offset"
)

// Errors of the kafka and kcat kinds.
var (
	// ErrKafkaRecord: a record could not be decoded as its value: or key:
	// option says (and bad_records: is fail), or its fields cannot be
	// columns. The message names topic, partition and offset.
	ErrKafkaRecord = fault.Runtime.New("kafka: record")
	// ErrKafkaRead: the cluster could not be read (connection, metadata,
	// offsets, fetch), or a kcat dump is not one read of a topic.
	ErrKafkaRead = fault.Runtime.New("kafka: read")
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
	declared   []Column
}

func readRecordOptions(o *options) recordOptions {
	ro := recordOptions{
		value: payload(o.String("value", string(payloadJSON))),
		key:   payload(o.String("key", string(payloadString))),
	}
	switch ro.value {
	case payloadJSON, payloadString, payloadBytes:
	default:
		o.errs = append(o.errs, fmt.Errorf("option value: %q: want json, string or bytes", ro.value))
	}
	switch ro.key {
	case payloadJSON, payloadString, payloadBytes, payloadNone:
	default:
		o.errs = append(o.errs, fmt.Errorf("option key: %q: want json, string, bytes or none", ro.key))
	}
	switch br := o.String("bad_records", "fail"); br {
	case "fail":
	case "report":
		ro.report = true
	default:
		o.errs = append(o.errs, fmt.Errorf("option bad_records: %q: want fail or report", br))
	}
	ro.declared = o.Types()
	return ro
}

// BadRecord is a record that was not loaded because it could not be
// decoded (bad_records: report): where it is and why.
type BadRecord struct {
	// Location is topic[partition]@offset.
	Location string `json:"location"`
	// Reason says what was expected and what was found.
	Reason string `json:"reason"`
}

// kafkaRecord is one record of a topic partition.
type kafkaRecord struct {
	Offset     int64
	Timestamp  int64 // milliseconds since the Unix epoch
	HasTime    bool
	Key, Value []byte // nil: null
	Headers    []kafkaHeader
}

type kafkaHeader struct {
	Key   string
	Value []byte
}

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

// kafkaColumns are the columns seen so far, each with where it was first
// seen, so the final order is that of first appearance in (topic,
// partition, offset) order whatever order the partitions were fetched in.
type kafkaColumns struct {
	index  map[string]int
	lower  map[string]string
	names  []string
	binary []bool
	owner  []int
	first  []firstSeen
}

type firstSeen struct {
	part   partitionRef
	offset int64
	pos    int
}

func newKafkaColumns() *kafkaColumns {
	return &kafkaColumns{index: map[string]int{}, lower: map[string]string{}}
}

// recordDecoder turns records into spooled rows, learning the columns. One
// decoder is used by one goroutine.
type recordDecoder struct {
	opt     recordOptions
	cols    *kafkaColumns
	parser  fastjson.Parser
	cells   []cell
	stamp   []uint32 // per column: the record that last set it
	gen     uint32
	name    []byte // scratch for a flattened name
	text    []byte // scratch for JSON text
	bad     []badAt
	err     error // set inside fastjson's Visit
	part    partitionRef
	offset  int64
	pos     int
	counted int // cells of the record so far
}

type cell struct {
	col  int
	null bool
	val  []byte // valid until the next record
}

type badAt struct {
	part   partitionRef
	offset int64
	reason string
}

func newRecordDecoder(opt recordOptions) *recordDecoder {
	return &recordDecoder{opt: opt, cols: newKafkaColumns()}
}

// errBad is a reason a record is bad, as opposed to a failure of the read.
type errBad struct{ reason string }

func (e *errBad) Error() string { return e.reason }

func bad(format string, args ...any) error { return &errBad{fmt.Sprintf(format, args...)} }

// decode decodes r into d.cells. It returns an *errBad for a record that
// does not decode, or an ErrKafkaRecord error for fields that cannot be
// columns at all.
func (d *recordDecoder) decode(p partitionRef, r *kafkaRecord) error {
	d.cells = d.cells[:0]
	d.gen++
	d.part, d.offset, d.pos = p, r.Offset, 0
	d.text = d.text[:0]
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

// json decodes a JSON object into cells named prefix+field (nested objects
// also as prefix+field.sub…).
func (d *recordDecoder) json(b []byte, what, prefix string) error {
	if !utf8.Valid(b) {
		return bad("%s is not UTF-8 text, so not JSON (%s: json)", what, what)
	}
	if err := fastjson.ValidateBytes(b); err != nil {
		return bad("%s is not JSON (%s: json): %s", what, what, shorten(err.Error()))
	}
	v, err := d.parser.ParseBytes(b)
	if err != nil {
		return bad("%s is not JSON (%s: json): %v", what, what, err)
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
	d.object(o, owner)
	return d.err
}

func (d *recordDecoder) object(o *fastjson.Object, owner int) {
	base := len(d.name)
	o.Visit(func(k []byte, v *fastjson.Value) {
		if d.err != nil {
			return
		}
		d.name = append(d.name[:base], k...)
		start := len(d.text)
		null := false
		switch v.Type() {
		case fastjson.TypeString:
			s, _ := v.StringBytes()
			d.text = append(d.text, s...)
		case fastjson.TypeNull:
			null = true
		default: // numbers exactly as written, true/false, nested JSON as compact text
			d.text = v.MarshalTo(d.text)
		}
		// d.text may move as it grows: a cell keeps its slice of the old
		// array, whose bytes append never changes.
		if err := d.addText(owner, start, null); err != nil {
			d.err = err
			return
		}
		if v.Type() == fastjson.TypeObject {
			obj, _ := v.Object()
			d.name = append(d.name, '.')
			d.object(obj, owner)
		}
	})
	d.name = d.name[:base]
}

// addText adds the cell named d.name whose value is d.text[start:].
func (d *recordDecoder) addText(owner, start int, null bool) error {
	col, err := d.column(d.name, false, owner)
	if err != nil {
		return err
	}
	d.cells = append(d.cells, cell{col: col, null: null, val: d.text[start:len(d.text):len(d.text)]})
	return nil
}

// add adds a cell whose value is v (not copied: valid while the record is).
func (d *recordDecoder) add(name string, isBinary bool, owner int, v []byte, null bool) error {
	col, err := d.column([]byte(name), isBinary, owner)
	if err != nil {
		return err
	}
	d.cells = append(d.cells, cell{col: col, null: null, val: v})
	return nil
}

// column returns the index of column name, adding it on first sight, and
// refuses a name used twice in one record, a reserved name, or one that
// clashes with another column.
func (d *recordDecoder) column(name []byte, isBinary bool, owner int) (int, error) {
	c := d.cols
	col, ok := c.index[string(name)]
	if !ok {
		n := string(name)
		switch {
		case owner != ownHeader && strings.HasPrefix(n, "__"):
			return 0, fmt.Errorf("%w: %s: field %q: names starting with __ are reserved for provenance columns", ErrKafkaRecord, d.where(), n)
		case n == FileColumn || n == LineColumn || n == RowColumn:
			return 0, fmt.Errorf("%w: %s: header %q: reserved for provenance", ErrKafkaRecord, d.where(), n)
		}
		if first, clash := c.lower[strings.ToLower(n)]; clash {
			return 0, fmt.Errorf("%w: %s: column %q differs only in case from %q; DuckDB, which runs the checks, does not tell them apart", ErrKafkaRecord, d.where(), n, first)
		}
		col = len(c.names)
		c.index[n] = col
		c.lower[strings.ToLower(n)] = n
		c.names = append(c.names, n)
		c.binary = append(c.binary, isBinary)
		c.owner = append(c.owner, owner)
		c.first = append(c.first, firstSeen{d.part, d.offset, d.pos})
		d.stamp = append(d.stamp, 0)
	} else {
		if c.owner[col] != owner {
			return 0, fmt.Errorf("%w: %s: column %q comes from both the %s and the %s; load the key with key: json or key: none", ErrKafkaRecord, d.where(), c.names[col], ownerName(c.owner[col]), ownerName(owner))
		}
		if cmpFirst(firstSeen{d.part, d.offset, d.pos}, c.first[col]) < 0 {
			c.first[col] = firstSeen{d.part, d.offset, d.pos}
		}
	}
	d.pos++
	if d.stamp[col] == d.gen {
		return 0, bad("%s %q appears twice in one record; which value holds is not defined", ownerName(owner), c.names[col])
	}
	d.stamp[col] = d.gen
	return col, nil
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

func cmpFirst(a, b firstSeen) int {
	return cmp.Or(comparePartitions(a.part, b.part), cmp.Compare(a.offset, b.offset), cmp.Compare(a.pos, b.pos))
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

// spool holds decoded rows on disk until every column is known: one temp
// file of chunks, each the rows of one partition in offset order, indexed
// per partition. It is written by one goroutine, then read once.
type spool struct {
	f      *os.File
	w      *bufio.Writer
	size   int64
	chunks map[partitionRef][]chunk
	buf    []byte
	n      int64
}

type chunk struct {
	pos, len int64
	rows     int
}

func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", "reconcile-kafka-*.spool")
	if err != nil {
		return nil, fmt.Errorf("%w: a spool file for the decoded records: %w", ErrKafkaRead, err)
	}
	return &spool{f: f, w: bufio.NewWriterSize(f, 1<<20), chunks: map[partitionRef][]chunk{}}, nil
}

// close removes the spool file.
func (s *spool) close() {
	if s == nil || s.f == nil {
		return
	}
	s.f.Close()
	os.Remove(s.f.Name())
	s.f = nil
}

// row appends one decoded row to the chunk being built.
func (s *spool) row(r *kafkaRecord, cells []cell) {
	b := s.buf
	b = binary.AppendVarint(b, r.Offset)
	if r.HasTime {
		b = append(b, 1)
		b = binary.AppendVarint(b, r.Timestamp)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(cells)))
	for _, c := range cells {
		b = binary.AppendUvarint(b, uint64(c.col))
		if c.null {
			b = append(b, 0)
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(c.val))+1)
		b = append(b, c.val...)
	}
	s.buf = b
	s.n++
}

// endChunk writes the rows appended since the last chunk as one chunk of p.
func (s *spool) endChunk(p partitionRef) error {
	if s.n == 0 {
		return nil
	}
	if _, err := s.w.Write(s.buf); err != nil {
		return fmt.Errorf("%w: write the spool file: %w", ErrKafkaRead, err)
	}
	s.chunks[p] = append(s.chunks[p], chunk{pos: s.size, len: int64(len(s.buf)), rows: int(s.n)})
	s.size += int64(len(s.buf))
	s.buf, s.n = s.buf[:0], 0
	return nil
}

// decodeChunk decodes recs of p into the spool as one chunk, collecting
// bad records (bad_records: report) or failing on the first. It returns
// the number of rows spooled.
func (d *recordDecoder) decodeChunk(s *spool, p partitionRef, recs []kafkaRecord) (int, error) {
	rows := 0
	for i := range recs {
		r := &recs[i]
		err := d.decode(p, r)
		if err == nil {
			s.row(r, d.cells)
			rows++
			continue
		}
		var be *errBad
		if !errors.As(err, &be) {
			return rows, err
		}
		if !d.opt.report {
			return rows, fmt.Errorf("%w: %s@%d: %s (bad_records: report lists such records instead of stopping)", ErrKafkaRecord, p.file(), r.Offset, be.reason)
		}
		if len(d.bad) >= maxBadRecords {
			return rows, fmt.Errorf("%w: more than %d records do not decode (the last at %s@%d: %s): is the value: option right for this topic?", ErrKafkaRecord, maxBadRecords, p.file(), r.Offset, be.reason)
		}
		d.bad = append(d.bad, badAt{p, r.Offset, be.reason})
	}
	return rows, s.endChunk(p)
}

// badRecords returns the bad records in (topic, partition, offset) order.
func (d *recordDecoder) badRecords() []BadRecord {
	slices.SortFunc(d.bad, func(a, b badAt) int {
		return cmp.Or(comparePartitions(a.part, b.part), cmp.Compare(a.offset, b.offset))
	})
	out := make([]BadRecord, len(d.bad))
	for i, b := range d.bad {
		out[i] = BadRecord{Location: fmt.Sprintf("%s@%d", b.part.file(), b.offset), Reason: b.reason}
	}
	return out
}

// spooledRecords returns the records of the spool, partitions in parts
// order, with the columns of cols in order of first appearance, then
// __partition, __offset, __timestamp and the header columns. The spool is
// removed once they are read (or released).
func spooledRecords(ctx context.Context, s *spool, cols *kafkaColumns, parts []partitionRef, opt ReadOptions) (array.RecordReader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("%w: write the spool file: %w", ErrKafkaRead, err)
	}
	order := make([]int, len(cols.names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ha, hb := cols.owner[a] == ownHeader, cols.owner[b] == ownHeader
		if ha != hb {
			if ha {
				return 1
			}
			return -1
		}
		return cmpFirst(cols.first[a], cols.first[b])
	})
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
	i := 0
	for ; i < len(order) && cols.owner[order[i]] != ownHeader; i++ {
		add(order[i])
	}
	prov := len(fields)
	fields = append(fields,
		arrow.Field{Name: PartitionColumn, Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: OffsetColumn, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: TimestampColumn, Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true})
	for ; i < len(order); i++ {
		add(order[i])
	}
	return ReadRows(ctx, fields, opt, func(ctx context.Context, w *RowWriter) error {
		defer s.close()
		n := len(fields)
		builders := make([]array.Builder, n)
		for j := range n {
			builders[j] = w.Column(j)
		}
		partB := builders[prov].(*array.Int32Builder)
		offB := builders[prov+1].(*array.Int64Builder)
		tsB := builders[prov+2].(*array.TimestampBuilder)
		vals := make([][]byte, n)
		set := make([]bool, n)
		var data []byte
		for _, p := range parts {
			file := p.file()
			for _, ch := range s.chunks[p] {
				if cap(data) < int(ch.len) {
					data = make([]byte, ch.len)
				}
				data = data[:ch.len]
				if _, err := s.f.ReadAt(data, ch.pos); err != nil && !(errors.Is(err, io.EOF) && len(data) == int(ch.len)) {
					return fmt.Errorf("%w: read the spool file: %w", ErrKafkaRead, err)
				}
				b := data
				for range ch.rows {
					off, k := binary.Varint(b)
					b = b[k:]
					hasTS := b[0] == 1
					b = b[1:]
					var ts int64
					if hasTS {
						ts, k = binary.Varint(b)
						b = b[k:]
					}
					nc, k := binary.Uvarint(b)
					b = b[k:]
					clear(set)
					size := 0
					for range nc {
						col, k := binary.Uvarint(b)
						b = b[k:]
						l, k := binary.Uvarint(b)
						b = b[k:]
						j := pos[col]
						set[j] = true
						if l == 0 {
							vals[j] = nil
							continue
						}
						vals[j] = b[: l-1 : l-1]
						b = b[l-1:]
						size += int(l - 1)
					}
					for j := range n {
						switch {
						case j >= prov && j < prov+3:
							continue
						case !set[j] || vals[j] == nil:
							builders[j].AppendNull()
						case fields[j].Type.ID() == arrow.BINARY:
							builders[j].(*array.BinaryBuilder).Append(vals[j])
						default:
							builders[j].(*array.StringBuilder).BinaryBuilder.Append(vals[j])
						}
					}
					partB.Append(p.Partition)
					offB.Append(off)
					if hasTS {
						tsB.Append(arrow.Timestamp(ts))
					} else {
						tsB.AppendNull()
					}
					if err := w.EndRow(file, off, size+16); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}
