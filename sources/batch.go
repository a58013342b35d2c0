package sources

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Bounds of every record batch ReadRows yields: a batch closes at BatchRows
// rows or once the values appended to it reach BatchBytes, whichever comes
// first, and at most batchesAhead finished batches wait for the consumer,
// so memory stays bounded however long the input or wide its rows.
const (
	BatchRows  = 64 * 1024
	BatchBytes = 32 << 20
	// batchesAhead lets decoding overlap with the consumer's ingestion
	// without batches piling up.
	batchesAhead = 1
)

// RecordSchema is the schema of a kind's records: the user columns, then the
// provenance columns __file (utf8), __line (int64) and __row (int64). A
// user column with a provenance name, or two user columns whose names are
// equal or differ only in case (CaseClash), is an ErrInvalidLocation.
func RecordSchema(user []arrow.Field) (*arrow.Schema, error) {
	names := make([]string, len(user))
	for i, f := range user {
		names[i] = f.Name
	}
	if err := CaseClash(names); err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, 0, len(user)+3)
	for _, f := range user {
		switch f.Name {
		case FileColumn, LineColumn, RowColumn:
			return nil, fmt.Errorf("%w: column name %q is reserved for provenance", ErrInvalidLocation, f.Name)
		}
		fields = append(fields, f)
	}
	fields = append(fields,
		arrow.Field{Name: FileColumn, Type: arrow.BinaryTypes.String},
		arrow.Field{Name: LineColumn, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: RowColumn, Type: arrow.PrimitiveTypes.Int64})
	return arrow.NewSchema(fields, nil), nil
}

// ReadOptions are the optional parts of a ReadRows.
type ReadOptions struct {
	// Progress and Label report the read: Label names it ("reading sink
	// public.postings"); nothing is reported when Progress is nil.
	Progress io.Writer
	Label    string
	// FirstRow is the __row of the first row (0 unless the records are a
	// part of an input whose earlier rows are read otherwise: PartScan).
	FirstRow int64
}

// FillFunc writes an input's rows to w, in read order, and returns nil once
// every row is written. It runs on a goroutine of its own; ctx is cancelled
// when the consumer releases the records early. An error it returns ends the
// records (their Err).
type FillFunc func(ctx context.Context, w *RowWriter) error

// ReadRows is the one batch builder of package sources (rule 3 of the
// Source contract): it returns the records of a kind whose user columns are
// user, written row by row by fill. fill starts at once, on its own
// goroutine, so decoding overlaps with the consumer; the records end when
// fill returns. Err is fill's error — or, once ctx is cancelled, an error
// that matches context.Canceled (errors.Is). Releasing the records cancels
// fill, waits for it and frees every batch not yet handed over.
//
// It fails, before starting fill, when a user column has a provenance name
// (ErrInvalidLocation).
func ReadRows(ctx context.Context, user []arrow.Field, opt ReadOptions, fill FillFunc) (array.RecordReader, error) {
	schema, err := RecordSchema(user)
	if err != nil {
		return nil, err
	}
	fctx, cancel := context.WithCancel(ctx)
	r := &rowReader{
		ctx:    ctx,
		schema: schema,
		cancel: cancel,
		out:    make(chan arrow.RecordBatch, batchesAhead),
		prog:   NewProgress(opt.Progress, opt.Label),
	}
	r.refs.Store(1)
	w := newRowWriter(fctx, schema, len(user), r.out)
	w.next = opt.FirstRow
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(r.out)
		defer w.release()
		err := fill(fctx, w)
		if err == nil {
			err = w.flush() // the last, partial batch
		}
		if cerr := ctx.Err(); err != nil && cerr != nil && !errors.Is(err, cerr) {
			// A library reports the cancellation in its own words (a
			// closed connection, an interrupted read): keep them, but let
			// errors.Is find the cause.
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		r.ferr = err
	}()
	return r, nil
}

// RowWriter builds record batches from rows for ReadRows: a kind appends one
// value (or null) to each user column's builder, then ends the row.
//
// The builders stay the same for the whole read (a kind may keep them), and
// a batch boundary is invisible to the kind. A RowWriter is used only by the
// fill function it was given to.
type RowWriter struct {
	ctx   context.Context
	b     *array.RecordBuilder
	nuser int
	file  *array.StringBuilder
	line  *array.Int64Builder
	row   *array.Int64Builder
	out   chan<- arrow.RecordBatch

	n, size  int   // rows and value bytes in the open batch
	next     int64 // __row of the next row
	fileSize int   // length of the last __file value, to reserve room

	// fileRun is a __file array of copies of fileName, which appendBatch
	// slices for each batch of that file's rows.
	fileRun  *array.String
	fileName string
}

func newRowWriter(ctx context.Context, schema *arrow.Schema, nuser int, out chan<- arrow.RecordBatch) *RowWriter {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	w := &RowWriter{ctx: ctx, b: b, nuser: nuser, out: out,
		file: b.Field(nuser).(*array.StringBuilder),
		line: b.Field(nuser + 1).(*array.Int64Builder),
		row:  b.Field(nuser + 2).(*array.Int64Builder)}
	w.reserve()
	return w
}

// Column is the builder of user column i (0-based, in schema order); its
// concrete type is the builder of the column's Arrow type
// (*array.StringBuilder for utf8, *array.Decimal128Builder, …).
func (w *RowWriter) Column(i int) array.Builder { return w.b.Field(i) }

// Fields are the user columns' fields, in schema order (the provenance
// columns excluded): what ReadRows was given.
func (w *RowWriter) Fields() []arrow.Field { return w.b.Schema().Fields()[:w.nuser] }

// EndRow ends a row whose values have been appended to every user column:
// it appends the provenance — file, line, and the next __row — and counts
// size bytes of values towards BatchBytes. When the batch is full it is
// handed over; EndRow then waits while the previous batch is still unread,
// and returns ctx's error once the read is cancelled.
func (w *RowWriter) EndRow(file string, line int64, size int) error {
	w.file.BinaryBuilder.AppendString(file)
	w.line.UnsafeAppend(line)
	w.row.UnsafeAppend(w.next)
	w.next++
	w.n++
	w.size += size
	if w.n >= BatchRows || w.size >= BatchBytes {
		w.fileSize = len(file)
		return w.flush()
	}
	return nil
}

// AppendBatch appends every row of rec — the user columns, in schema order
// and of the schema's types — with __file set to file and __line counting
// from firstLine. Rows ended before are handed over first; rec is cut into
// batches of at most BatchRows rows (its arrays are shared, not copied), and
// the caller may release rec once AppendBatch returns. The producer of rec
// bounds its size in bytes.
func (w *RowWriter) AppendBatch(rec arrow.RecordBatch, file string, firstLine int64) error {
	return w.appendBatch(rec, file, firstLine, nil)
}

// AppendBatchAt is AppendBatch with __line taken from lines, one per row
// of rec (a Kafka record's offset: offsets have gaps). lines must not hold
// nulls.
func (w *RowWriter) AppendBatchAt(rec arrow.RecordBatch, file string, lines *array.Int64) error {
	if int64(lines.Len()) != rec.NumRows() || lines.NullN() != 0 {
		return fmt.Errorf("sources: %s: %d lines (%d null) for a batch of %d rows", file, lines.Len(), lines.NullN(), rec.NumRows())
	}
	return w.appendBatch(rec, file, 0, lines.Int64Values())
}

// appendBatch appends rec's rows; __line is lines[i] for row i, or
// firstLine+i when lines is nil.
func (w *RowWriter) appendBatch(rec arrow.RecordBatch, file string, firstLine int64, lines []int64) error {
	if err := w.flush(); err != nil {
		return err
	}
	if int(rec.NumCols()) != w.nuser {
		return fmt.Errorf("sources: a batch of %d columns for a schema of %d", rec.NumCols(), w.nuser)
	}
	for i := range w.nuser {
		if got, want := rec.Column(i).DataType(), w.b.Schema().Field(i).Type; !arrow.TypeEqual(got, want) {
			return fmt.Errorf("sources: %s: column %s is %s in this batch, %s in the schema", file, w.b.Schema().Field(i).Name, got, want)
		}
	}
	total := rec.NumRows()
	for start := int64(0); start < total; start += BatchRows {
		end := min(start+BatchRows, total)
		part := rec.NewSlice(start, end)
		n := end - start
		w.line.Reserve(int(n))
		w.row.Reserve(int(n))
		for i := range n {
			if lines != nil {
				w.line.UnsafeAppend(lines[start+i])
			} else {
				w.line.UnsafeAppend(firstLine + start + i)
			}
			w.row.UnsafeAppend(w.next)
			w.next++
		}
		cols := make([]arrow.Array, 0, w.nuser+3)
		cols = append(cols, part.Columns()...)
		prov := []arrow.Array{w.fileColumn(file, n), w.line.NewArray(), w.row.NewArray()}
		cols = append(cols, prov...)
		out := array.NewRecordBatch(w.b.Schema(), cols, n)
		for _, a := range prov {
			a.Release()
		}
		part.Release()
		if err := w.send(out); err != nil {
			return err
		}
	}
	w.reserveProvenance() // NewArray gave the builders' room away
	return w.ctx.Err()
}

// fileColumn returns a __file array of n copies of file: a slice of the
// last one made, made again only for another file or more rows (so a file
// read in batches of BatchRows rows has its array made once).
func (w *RowWriter) fileColumn(file string, n int64) arrow.Array {
	if w.fileRun == nil || w.fileName != file || int64(w.fileRun.Len()) < n {
		if w.fileRun != nil {
			w.fileRun.Release()
		}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		b.Reserve(int(n))
		b.ReserveData(int(n) * len(file))
		for range n {
			b.BinaryBuilder.AppendString(file)
		}
		w.fileRun, w.fileName = b.NewStringArray(), file
		b.Release()
	}
	return array.NewSlice(w.fileRun, 0, n)
}

// release frees the builders and the __file array kept.
func (w *RowWriter) release() {
	w.b.Release()
	if w.fileRun != nil {
		w.fileRun.Release()
		w.fileRun = nil
	}
}

// flush hands over the open batch, if it holds a row, and checks ctx.
func (w *RowWriter) flush() error {
	if w.n == 0 {
		return w.ctx.Err()
	}
	for i := range w.nuser {
		if l := w.b.Field(i).Len(); l != w.n {
			return fmt.Errorf("sources: column %s holds %d values for %d rows (a kind appends one value to every column per row)", w.b.Schema().Field(i).Name, l, w.n)
		}
	}
	rec := w.b.NewRecordBatch()
	w.n, w.size = 0, 0
	if err := w.send(rec); err != nil {
		return err
	}
	w.reserve()
	return w.ctx.Err()
}

func (w *RowWriter) send(rec arrow.RecordBatch) error {
	select {
	case w.out <- rec:
		return nil
	case <-w.ctx.Done():
		rec.Release()
		return w.ctx.Err()
	}
}

// reserve makes room for a full batch in the provenance builders (EndRow
// appends to them without checks) and in the user columns.
func (w *RowWriter) reserve() {
	for i := range w.nuser {
		w.b.Field(i).Reserve(BatchRows)
	}
	w.reserveProvenance()
}

func (w *RowWriter) reserveProvenance() {
	w.file.Reserve(BatchRows)
	w.file.ReserveData(BatchRows * max(w.fileSize, 8))
	w.line.Reserve(BatchRows)
	w.row.Reserve(BatchRows)
}

// rowReader is the array.RecordReader ReadRows returns: Next takes the
// batches a fill goroutine sends.
type rowReader struct {
	ctx    context.Context // the reader's: once it is cancelled, Next ends
	schema *arrow.Schema
	cancel context.CancelFunc
	out    chan arrow.RecordBatch
	wg     sync.WaitGroup
	ferr   error // set by the fill goroutine before it closes out
	prog   *Progress

	refs     atomic.Int64
	once     sync.Once
	cur      arrow.RecordBatch
	err      error
	finished bool
}

func (r *rowReader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one stops the fill goroutine and
// frees every batch not yet handed over.
func (r *rowReader) Release() {
	if r.refs.Add(-1) > 0 {
		return
	}
	r.once.Do(func() {
		r.cancel()
		for rec := range r.out {
			rec.Release()
		}
		r.wg.Wait()
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		if !r.finished {
			r.prog.Abort()
		}
	})
}

func (r *rowReader) Schema() *arrow.Schema          { return r.schema }
func (r *rowReader) Record() arrow.RecordBatch      { return r.cur }
func (r *rowReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *rowReader) Err() error                     { return r.err }

func (r *rowReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.finished {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		// Cancelled: end now, even if the last batches are ready.
		r.finished, r.err = true, err
		r.prog.Abort()
		return false
	}
	rec, ok := <-r.out
	if !ok {
		r.finished = true
		r.err = r.ferr
		if r.err != nil {
			r.prog.Abort()
		} else {
			r.prog.Done()
		}
		return false
	}
	r.cur = rec
	r.prog.Add(rec.NumRows())
	return true
}
