package sources

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5/pgconn"
)

// Batch bounds of the postgres reader: a record batch closes at pgBatchRows
// rows or once its values reach pgBatchBytes, whichever comes first, so
// memory stays bounded however long the table or wide its rows.
const (
	pgBatchRows  = 64 * 1024
	pgBatchBytes = 32 << 20
	// pgBatchesAhead is how many decoded batches may wait for DuckDB: one
	// lets decoding overlap with DuckDB's ingestion without piling up.
	pgBatchesAhead = 1
)

// pgReader is an array.RecordReader over a binary-format PostgreSQL result.
// One goroutine reads rows from the connection and decodes them into Arrow
// builders; Next hands its batches to the consumer (DuckDB's Arrow scan).
// The provenance columns (__file, __line, __row) are appended after the
// result's columns.
type pgReader struct {
	schema *arrow.Schema
	cols   []pgColumn
	rr     *pgconn.ResultReader
	file   string
	prog   *progress

	refs   atomic.Int64
	cancel context.CancelFunc
	once   sync.Once
	wg     sync.WaitGroup
	out    chan arrow.RecordBatch
	perr   error // set by the producer before it closes out
	cur    arrow.RecordBatch
	err    error
}

// newPGReader starts reading rr, whose columns are cols, on a goroutine;
// file is the __file value of every row. ctx must be the context rr was
// started with and cancel its cancel function: stopping the reader cancels
// the query.
func newPGReader(ctx context.Context, cancel context.CancelFunc, rr *pgconn.ResultReader, cols []pgColumn, file string, prog *progress) *pgReader {
	fields := make([]arrow.Field, 0, len(cols)+3)
	for _, c := range cols {
		fields = append(fields, arrow.Field{Name: c.Name, Type: c.Arrow, Nullable: true})
	}
	fields = append(fields,
		arrow.Field{Name: FileColumn, Type: arrow.BinaryTypes.String},
		arrow.Field{Name: LineColumn, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: RowColumn, Type: arrow.PrimitiveTypes.Int64})
	r := &pgReader{schema: arrow.NewSchema(fields, nil), cols: cols, rr: rr, file: file, prog: prog}
	r.refs.Store(1)
	r.cancel = cancel
	r.out = make(chan arrow.RecordBatch, pgBatchesAhead)
	r.wg.Add(1)
	go r.produce(ctx)
	return r
}

func (r *pgReader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one stops the producer and frees
// every batch not yet handed over.
func (r *pgReader) Release() {
	if r.refs.Add(-1) > 0 {
		return
	}
	r.stop()
}

// stop cancels the producer, waits for it and frees what it left. It is
// safe to call more than once.
func (r *pgReader) stop() {
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
	})
}

func (r *pgReader) Schema() *arrow.Schema          { return r.schema }
func (r *pgReader) Record() arrow.RecordBatch      { return r.cur }
func (r *pgReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *pgReader) Err() error                     { return r.err }

func (r *pgReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	rec, ok := <-r.out
	if !ok {
		r.err = r.perr
		return false
	}
	r.cur = rec
	r.prog.Add(rec.NumRows())
	return true
}

// produce reads every row of r.rr into batches on r.out, then closes it.
// A decoding or server error is left in r.perr.
func (r *pgReader) produce(ctx context.Context) {
	defer r.wg.Done()
	defer close(r.out)
	b := array.NewRecordBuilder(memory.DefaultAllocator, r.schema)
	defer b.Release()
	nc := len(r.cols)
	app := make([]pgAppender, nc)
	for i := range r.cols {
		app[i] = appenderFor(&r.cols[i], b.Field(i))
	}
	fileB := b.Field(nc).(*array.StringBuilder)
	lineB := b.Field(nc + 1).(*array.Int64Builder)
	rowB := b.Field(nc + 2).(*array.Int64Builder)
	var row int64
	for {
		for i := range nc {
			b.Field(i).Reserve(pgBatchRows)
		}
		fileB.Reserve(pgBatchRows)
		fileB.ReserveData(pgBatchRows * len(r.file))
		lineB.Reserve(pgBatchRows)
		rowB.Reserve(pgBatchRows)
		n, size := 0, 0
		more := true
		for n < pgBatchRows && size < pgBatchBytes {
			if !r.rr.NextRow() {
				more = false
				break
			}
			vals := r.rr.Values()
			if len(vals) != nc {
				r.perr = fmt.Errorf("row %d: %d values, want %d", row+1, len(vals), nc)
				r.rr.Close()
				return
			}
			for i, v := range vals {
				if v == nil {
					b.Field(i).AppendNull()
					continue
				}
				size += len(v)
				if err := app[i](v); err != nil {
					r.perr = r.valueError(i, row, err)
					r.rr.Close()
					return
				}
			}
			fileB.BinaryBuilder.AppendString(r.file)
			lineB.UnsafeAppend(row + 1)
			rowB.UnsafeAppend(row)
			row++
			n++
		}
		if !more {
			if _, err := r.rr.Close(); err != nil {
				if cerr := ctx.Err(); cerr != nil {
					err = cerr
				}
				r.perr = err
				return
			}
		}
		if n > 0 {
			rec := b.NewRecordBatch()
			select {
			case r.out <- rec:
			case <-ctx.Done():
				rec.Release()
				r.perr = ctx.Err()
				r.rr.Close()
				return
			}
		}
		if !more {
			return
		}
	}
}

// valueError names the column, the 1-based row and the value's problem.
func (r *pgReader) valueError(col int, row int64, err error) error {
	c := r.cols[col]
	return fmt.Errorf("%s:%d: column %s (%s): %w", r.file, row+1, c.Name, c.PGType, err)
}
