package sources

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck"
)

// csvPhysicalLines makes __line the physical line a CSV record starts on.
// DuckDB numbers records, not lines: after a blank line or a quoted field
// that spans lines the two differ, and evidence pointing at "file:line"
// would send a reader to the wrong record. For each file whose line count
// differs from its record count, the records' start lines are read with
// encoding/csv and written into the table. Files without blank lines or
// multi-line fields (the common case) cost one pass counting newlines.
func csvPhysicalLines(ctx context.Context, db *duck.DB, table string, files []string, base string, delim, quote rune, header bool) error {
	for _, path := range files {
		lines, err := countLines(path)
		if err != nil {
			return err
		}
		shown := Rel(base, path)
		records, err := db.Count(ctx, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s = ?", duck.Ident(table), duck.Ident(FileColumn)), shown)
		if err != nil {
			return err
		}
		if header {
			records++
		}
		if records == lines {
			continue
		}
		if quote != '"' {
			// encoding/csv knows only the double quote: leave record
			// numbers, which are still right up to the first difference.
			continue
		}
		if err := mapLines(ctx, db, table, path, shown, delim, header); err != nil {
			return fmt.Errorf("%s: line numbers: %w", shown, err)
		}
	}
	return nil
}

// countLines counts the lines of a file (a last line without a newline
// counts), reading .gz files decompressed.
func countLines(path string) (int64, error) {
	r, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return 0, err
	}
	defer closeFn()
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
			return 0, fmt.Errorf("read %s: %w", path, err)
		}
	}
	if last != '\n' {
		n++
	}
	return n, nil
}

func openMaybeGzip(path string) (io.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(path, ".gz") {
		return bufio.NewReaderSize(f, 1<<20), func() { f.Close() }, nil
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return gz, func() { gz.Close(); f.Close() }, nil
}

// mapLines reads the start line of every record of one file and sets
// __line from it (records are matched by their position in the file).
func mapLines(ctx context.Context, db *duck.DB, table, path, shown string, delim rune, header bool) error {
	r, closeFn, err := openMaybeGzip(path)
	if err != nil {
		return err
	}
	defer closeFn()
	cr := csv.NewReader(r)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
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
	first := 2
	if !header {
		first = 1
	}
	for i := int64(0); ; i++ {
		if _, err := cr.Read(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return err
		}
		if i == 0 && header {
			continue
		}
		line, _ := cr.FieldPos(0)
		rec := i - 1 + int64(first) // the record-based __line DuckDB's order gave
		if !header {
			rec = i + int64(first)
		}
		b.Field(0).(*array.Int64Builder).Append(rec)
		b.Field(1).(*array.Int64Builder).Append(int64(line))
		if b.Field(0).Len() == 65536 {
			recs = append(recs, b.NewRecordBatch())
			if err := ctx.Err(); err != nil {
				return err
			}
		}
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
	defer db.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+duck.Ident(m))
	return db.Exec(ctx, fmt.Sprintf(`UPDATE %[1]s SET %[2]s = m.line FROM %[3]s AS m
WHERE %[1]s.%[4]s = ? AND %[1]s.%[2]s = m.rec`, duck.Ident(table), duck.Ident(LineColumn), duck.Ident(m), duck.Ident(FileColumn)), shown)
}
