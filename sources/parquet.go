package sources

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func init() {
	Register("parquet", openParquet, "pq")
}

// parquetSource reads Apache Parquet files; columns keep the types the
// files declare. Every file must declare the same columns with the same
// types. A Parquet file compresses its pages itself: a .parquet.gz or
// .parquet.zst is refused, not unpacked. Option: types.
//
// It implements Scanner: an engine may read the files itself (DuckDB's
// read_parquet). Read decodes them with arrow-go's pqarrow.
type parquetSource struct {
	loc      Location
	declared []Column
}

func openParquet(loc Location) (Source, error) {
	o := newOptions("parquet", loc.Options)
	types := o.Types()
	if err := o.Err(); err != nil {
		return nil, err
	}
	return &parquetSource{loc: loc, declared: types}, nil
}

func (s *parquetSource) Close() error { return nil }

func (s *parquetSource) prepare(ctx context.Context) (*Input, []ScanFile, error) {
	in, files, err := listInput(ctx, s.loc, "parquet", s.declared)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		if f.Compression != NoCompression {
			return nil, nil, fmt.Errorf("%w: %s: a Parquet file compresses its pages itself; a %s-compressed Parquet file is not read (decompress it first)", ErrInvalidLocation, f.Name, f.Compression)
		}
	}
	return in, files, nil
}

// Scan describes the files for an engine's own Parquet reader.
func (s *parquetSource) Scan(ctx context.Context) (*Input, *Scan, error) {
	in, files, err := s.prepare(ctx)
	if err != nil {
		return nil, nil, err
	}
	return in, &Scan{Format: FormatParquet, Files: files, FirstLine: 1}, nil
}

// Read decodes the files with pqarrow, in batches of at most BatchRows rows.
func (s *parquetSource) Read(ctx context.Context) (*Input, array.RecordReader, error) {
	in, files, err := s.prepare(ctx)
	if err != nil {
		return nil, nil, err
	}
	var fields []arrow.Field
	for i, f := range files {
		sc, err := parquetSchema(f.Path)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			fields = sc.Fields()
			continue
		}
		if !sameFields(fields, sc.Fields()) {
			return nil, nil, fmt.Errorf("%s: columns %s differ from %s's %s; every file of one input must have the same columns and types", f.Name, fieldList(sc.Fields()), files[0].Name, fieldList(fields))
		}
	}
	for i := range fields {
		fields[i].Metadata = arrow.Metadata{}
		fields[i].Nullable = true
	}
	rr, err := ReadRows(ctx, fields, ReadOptions{Progress: s.loc.Progress, Label: "reading " + s.loc.Role + " " + s.loc.URI}, func(ctx context.Context, w *RowWriter) error {
		for _, f := range files {
			if err := readParquetFile(ctx, f, w); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return in, rr, nil
}

func openParquetFile(path string) (*pqarrow.FileReader, func(), error) {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: BatchRows}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return fr, func() { pf.Close() }, nil
}

func parquetSchema(path string) (*arrow.Schema, error) {
	fr, closeFn, err := openParquetFile(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	sc, err := fr.Schema()
	if err != nil {
		return nil, fmt.Errorf("%s: schema: %w", path, err)
	}
	return sc, nil
}

func readParquetFile(ctx context.Context, f ScanFile, w *RowWriter) error {
	fr, closeFn, err := openParquetFile(f.Path)
	if err != nil {
		return err
	}
	defer closeFn()
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rr.Release()
	line := int64(1)
	for rr.Next() {
		rec := rr.RecordBatch()
		if err := w.AppendBatch(rec, f.Name, line); err != nil {
			return err
		}
		line += rec.NumRows()
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}

func sameFields(a, b []arrow.Field) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !arrow.TypeEqual(a[i].Type, b[i].Type) {
			return false
		}
	}
	return true
}

func fieldList(fs []arrow.Field) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name + " " + f.Type.String()
	}
	return "(" + strings.Join(out, ", ") + ")"
}
