package kafka

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/internal/jsontext"
)

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

// spooledRecords returns the records the decoders decs wrote to their
// spools, partitions in parts order, with the columns in order of first
// appearance in (topic, partition, offset) order, then __partition,
// __offset, __timestamp and the header columns (in the same order). Each
// chunk's arrays become a batch's columns as they are (a column the chunk
// does not have is all null). The spools are removed once the records are
// read (or released).
// spoolLayout is how the spooled chunks of the partitions become the
// records: the chunks per partition, the fields (value columns in first-seen
// order, then __partition, __offset, __timestamp, then the headers), each
// column's field position, the position of __partition, and the header
// columns whose values are JSON lists (a name some record repeats).
type spoolLayout struct {
	chunks map[partitionRef][]chunk
	fields []arrow.Field
	pos    []int
	prov   int
	listed map[int]bool
}

// layoutSpools flushes the spools and lays out the records' columns.
func layoutSpools(spools []*spool, decs []*recordDecoder, cols *kafkaColumns, parts []partitionRef) (*spoolLayout, error) {
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
				switch cols.owner[c.col] {
				case ownHeaderList: // merged into its header's column
				case ownHeader:
					headers = append(headers, c.col)
				default:
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
	// listed: the positions of the header columns some record repeats,
	// whose every value becomes a JSON array
	listed := map[int]bool{}
	for i, n := range cols.names {
		if cols.owner[i] == ownHeaderList {
			listed[pos[cols.index[n[1:]]]] = true
		}
	}
	return &spoolLayout{chunks: chunks, fields: fields, pos: pos, prov: prov, listed: listed}, nil
}

func spooledRecords(ctx context.Context, spools []*spool, decs []*recordDecoder, cols *kafkaColumns, parts []partitionRef, opt sources.ReadOptions) (array.RecordReader, error) {
	l, err := layoutSpools(spools, decs, cols, parts)
	if err != nil {
		return nil, err
	}
	chunks, fields, pos, prov, listed := l.chunks, l.fields, l.pos, l.prov, l.listed
	schema := arrow.NewSchema(fields, nil)
	closeAll := func() {
		for _, sp := range spools {
			sp.close()
		}
	}
	return sources.ReadRows(ctx, fields, opt, func(ctx context.Context, w *sources.RowWriter) error {
		defer closeAll()
		arrs := make([]arrow.Array, len(fields))
		lists := make([]arrow.Array, len(fields)) // a listed header's list column in the chunk
		for _, p := range parts {
			file := p.file()
			for _, ch := range chunks[p] {
				rec, err := ch.read()
				if err != nil {
					return err
				}
				n := rec.NumRows()
				clear(arrs)
				clear(lists)
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
						if cols.owner[col] == ownHeaderList {
							lists[pos[cols.index[cols.names[col][1:]]]] = rec.Column(i)
							continue
						}
						arrs[pos[col]] = rec.Column(i)
					}
				}
				var made []arrow.Array
				for j := range listed {
					arrs[j] = headerLists(arrs[j], lists[j], int(n))
					made = append(made, arrs[j])
				}
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

// headerLists is the column of a header some record repeats, for one
// chunk of n rows: each row's values as a JSON array, from the row's list
// (the record repeated the header) or its single value (plain; nil
// arrays: no row of the chunk has one). A row with neither is NULL.
func headerLists(plain, list arrow.Array, n int) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	var buf []byte
	for r := range n {
		switch {
		case list != nil && list.IsValid(r):
			b.Append(list.(*array.String).Value(r))
		case plain != nil && plain.IsValid(r):
			buf = append(jsontext.AppendString(append(buf[:0], '['), []byte(plain.(*array.String).Value(r))), ']')
			b.Append(string(buf))
		default:
			b.AppendNull()
		}
	}
	return b.NewArray()
}
