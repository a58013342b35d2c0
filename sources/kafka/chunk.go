package kafka

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/twmb/franz-go/pkg/kgo"
)

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
