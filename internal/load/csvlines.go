package load

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/file"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

// physicalLines makes __line the physical line a CSV record starts on.
// DuckDB numbers records, not lines: after a blank line or a quoted field
// that spans lines the two differ, and evidence pointing at "file:line"
// would send a reader to the wrong record. For each file whose line count
// differs from its record count, the records' start lines are read by the
// csv kind's own reading (file.RecordLines) and written into the table.
// Files without blank lines or multi-line fields (the common case) cost one
// pass counting newlines. A file whose quote character is not ASCII keeps
// record numbers, which are right up to the first difference.
func physicalLines(ctx context.Context, db *duck.DB, table string, scan *sources.Scan) error {
	for _, f := range scan.Files {
		lines, err := countLines(f.Path)
		if err != nil {
			return err
		}
		records, err := db.CountFile(ctx, statements(), queries.LoadFileRecords, tableData{table}, f.Name)
		if err != nil {
			return err
		}
		if scan.Header {
			records++
		}
		if records == lines {
			continue
		}
		if len(scan.Quote) != 1 { // a quote outside ASCII (see the doc comment)
			continue
		}
		// __line is set row by row: a view over the raw rows becomes a
		// table first.
		if err := db.Materialize(ctx, table); err != nil {
			return err
		}
		if err := setLines(ctx, db, table, scan, f); err != nil {
			return fmt.Errorf("%s: line numbers: %w", f.Name, err)
		}
	}
	return nil
}

// countLines counts the lines of a file's text (a last line without a
// newline counts), decompressed as every kind reads it.
func countLines(path string) (int64, error) {
	r, err := fileset.Open(path)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	buf := make([]byte, 1<<20)
	var n int64
	var last byte = '\n'
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

// setLines reads the start line of every record of one file and sets
// __line from it: the k-th record (from 0) carries the record-numbered
// __line FirstLine+k until then.
func setLines(ctx context.Context, db *duck.DB, table string, scan *sources.Scan, f sources.ScanFile) error {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "rec", Type: arrow.PrimitiveTypes.Int64},
		{Name: "line", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	var recs []arrow.RecordBatch
	defer func() {
		for _, rb := range recs {
			rb.Release()
		}
	}()
	rec := scan.FirstLine
	err := file.RecordLines(ctx, scan, f, func(line int64) error {
		b.Field(0).(*array.Int64Builder).Append(rec)
		b.Field(1).(*array.Int64Builder).Append(line)
		rec++
		if b.Field(0).Len() == sources.BatchRows {
			recs = append(recs, b.NewRecordBatch())
		}
		return nil
	})
	if err != nil {
		return err
	}
	recs = append(recs, b.NewRecordBatch())
	rr, err := array.NewRecordReader(schema, recs)
	if err != nil {
		return err
	}
	defer rr.Release()
	m := table + "__lines"
	if _, err := db.LoadArrow(ctx, m, rr); err != nil {
		return err
	}
	defer drop(ctx, db, m)
	return db.ExecFile(ctx, statements(), queries.LoadSetLines, struct{ Table, Lines string }{table, m}, f.Name)
}
