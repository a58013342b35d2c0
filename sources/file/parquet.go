package file

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pqfile "github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

func init() {
	sources.Register("parquet", openParquet, "pq")
	sources.RegisterFileKind("parquet")
}

// parquetSource reads Apache Parquet files. Every file is read with its own
// schema, from its own footer (arrow-go's pqarrow, never an engine that
// casts every file to the first file's schema), and the files' types are
// unified only where no value can change (unifyParquet): a column whose
// types cannot be, or a column one file lacks, is an error naming both
// files, the column and both types. A Parquet file compresses its pages
// itself: a .parquet.gz or .parquet.zst is refused, not unpacked, and a
// valid-length side file that cuts one is refused (its footer is at the
// end). Before any engine reads them, the values a column's loaded type
// depends on or would change are read from the files themselves
// (checkValues): a nanosecond timestamp DuckDB reads in microseconds must
// hold whole microseconds, and a decimal column of more than 38 digits gets
// the narrowest DECIMAL its values need. Options: partitions (see
// fileset.Partitions), types, bad_records (fail or report: such a value,
// or one that does not convert to its declared type, is listed instead of
// stopping the run).
//
// It implements Scanner: an engine may read the files itself (DuckDB's
// read_parquet), one run of files of one schema at a time, each column cast
// to its unified type (Scan.Types). Read decodes them with pqarrow. It
// implements UncommittedReader.
type parquetSource struct {
	loc        sources.Location
	partitions *fileset.Partitions
	declared   []sources.Column
	ls         *fileset.Listed
	// report is bad_records: report: a value that cannot be read exactly
	// is listed (Input.BadRecords) instead of stopping the run.
	report bool
}

func openParquet(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions("parquet", loc.Options)
	parts := fileset.ReadPartitions(o)
	types := o.Types()
	report := o.BadRecords()
	if err := o.Err(); err != nil {
		return nil, err
	}
	return &parquetSource{loc: loc, partitions: parts, declared: types, report: report}, nil
}

func (s *parquetSource) Close() error { return nil }

// prepare lists and fingerprints the files, reads each one's schema,
// unifies them and checks the values that need it (checkValues): the
// records it lists (with report) are the Input's BadRecords.
func (s *parquetSource) prepare(ctx context.Context) (*sources.Input, []sources.ScanFile, []arrow.Field, valueCheck, error) {
	in, files, ls, err := fileset.ListInput(ctx, s.loc, "parquet", s.declared, s.partitions)
	if err != nil {
		return nil, nil, nil, valueCheck{}, err
	}
	s.ls = ls
	in.ReportsBadRecords = s.report
	fields, vc, err := parquetFields(ctx, files, s.report, false)
	if err != nil {
		return nil, nil, nil, vc, err
	}
	if err := checkPartitionNames(fieldNames(fields), in.Partitions); err != nil {
		return nil, nil, nil, vc, err
	}
	in.BadRecords = vc.bad
	return in, files, fields, vc, nil
}

// parquetFields reads each file's schema into files[i].Columns, unifies
// them and checks the values that need it (checkValues, report saying
// whether a value that cannot be read exactly is listed or an error; with
// typesOnly only those that decide a type), and returns the unified
// columns.
func parquetFields(ctx context.Context, files []sources.ScanFile, report, typesOnly bool) ([]arrow.Field, valueCheck, error) {
	fields, schemas, infos, err := parquetSchemas(files)
	if err != nil {
		return nil, valueCheck{}, err
	}
	vc, err := checkValues(ctx, files, schemas, infos, fields, report, typesOnly)
	if err != nil {
		return nil, vc, err
	}
	return fields, vc, nil
}

// parquetSchemas reads each file's columns (parquetColumns) into
// files[i].Columns, with the DuckDB type of each, and unifies them.
func parquetSchemas(files []sources.ScanFile) ([]arrow.Field, [][]arrow.Field, [][]columnInfo, error) {
	schemas := make([][]arrow.Field, len(files))
	infos := make([][]columnInfo, len(files))
	for i := range files {
		f := &files[i]
		if f.Compression != sources.NoCompression {
			return nil, nil, nil, fmt.Errorf("%w: %s: a Parquet file compresses its pages itself; a %s-compressed Parquet file is not read (decompress it first)", sources.ErrInvalidLocation, f.Name, f.Compression)
		}
		if f.Cut() {
			return nil, nil, nil, fmt.Errorf("%w %s gives %s a committed length of %d of its %d bytes, but a Parquet file cannot be cut: its footer is at its end", fileset.ErrValidLength, f.ValidLength.SideFile, f.Name, f.ValidLength.Length, f.Size)
		}
		fs, info, err := parquetColumns(f.Path)
		if err != nil {
			return nil, nil, nil, err
		}
		if err := checkNames(f.Name, fieldNames(fs)); err != nil {
			return nil, nil, nil, err
		}
		schemas[i], infos[i] = fs, info
		f.Columns = make([]sources.Column, len(fs))
		for j, fd := range fs {
			f.Columns[j] = sources.Column{Name: fd.Name, Type: duckType(fd.Type)}
		}
	}
	fields, err := unifyParquet(files, schemas)
	return fields, schemas, infos, err
}

// Schema returns the columns with their unified types (unifyParquet), then
// the partition columns (VARCHAR), from each file's footer (and, for a
// decimal of more than 38 digits, its values), as Scan and Read will load
// them before declared types apply. Errors are those of Read: a compressed
// or cut Parquet file, files whose schemas cannot be unified, a value that
// cannot be read exactly (without bad_records: report).
func (s *parquetSource) Schema(ctx context.Context) ([]sources.Column, error) {
	files, parts, err := fileset.ListSchema(ctx, s.loc, s.partitions)
	if err != nil {
		return nil, err
	}
	fields, _, err := parquetFields(ctx, files, s.report, true)
	if err != nil {
		return nil, err
	}
	if err := checkPartitionNames(fieldNames(fields), parts); err != nil {
		return nil, err
	}
	out := make([]sources.Column, 0, len(fields)+len(parts))
	for _, f := range fields {
		out = append(out, sources.Column{Name: f.Name, Type: duckType(f.Type)})
	}
	for _, p := range parts {
		out = append(out, sources.Column{Name: p, Type: "VARCHAR"})
	}
	return out, nil
}

// Scan describes the files for an engine's own Parquet reader.
func (s *parquetSource) Scan(ctx context.Context) (*sources.Input, *sources.Scan, error) {
	in, files, fields, vc, err := s.prepare(ctx)
	if err != nil {
		return nil, nil, err
	}
	types := make([]sources.Column, len(fields))
	for i, f := range fields {
		types[i] = sources.Column{Name: f.Name, Type: duckType(f.Type)}
	}
	return in, &sources.Scan{Format: sources.FormatParquet, Files: files, FirstLine: 1, Partitions: in.Partitions, Types: types, SourceRead: vc.sourceRead}, nil
}

// Read decodes the files with pqarrow, in batches of at most BatchRows rows,
// each column converted to its unified type.
func (s *parquetSource) Read(ctx context.Context) (*sources.Input, array.RecordReader, error) {
	in, files, fields, _, err := s.prepare(ctx)
	if err != nil {
		return nil, nil, err
	}
	rr, err := s.readFiles(ctx, files, fields, in.Partitions, s.loc.Progress, s.report)
	if err != nil {
		return nil, nil, err
	}
	return in, rr, nil
}

// ReadUncommitted reads one uncommitted file of the listing with its own
// schema.
func (s *parquetSource) ReadUncommitted(ctx context.Context, name string) (array.RecordReader, error) {
	f, err := s.ls.UncommittedFile(name, false)
	if err != nil {
		return nil, err
	}
	files := []sources.ScanFile{f}
	// An uncommitted file's records are only counted: a value that cannot
	// be read stops the run whatever bad_records says.
	fields, _, err := parquetFields(ctx, files, false, false)
	if err != nil {
		return nil, err
	}
	parts := s.ls.PartitionNames()
	if err := checkPartitionNames(fieldNames(fields), parts); err != nil {
		return nil, err
	}
	return s.readFiles(ctx, files, fields, parts, nil, false)
}

// readFiles reads files into fields (the unified columns), then the
// partition columns; with lenient, a value checkValues listed (which the
// loader removes) is read as NULL rather than refused.
func (s *parquetSource) readFiles(ctx context.Context, files []sources.ScanFile, fields []arrow.Field, parts []string, progress io.Writer, lenient bool) (array.RecordReader, error) {
	all := make([]arrow.Field, 0, len(fields)+len(parts))
	for _, f := range fields {
		f.Metadata = arrow.Metadata{}
		f.Nullable = true
		all = append(all, f)
	}
	for _, p := range parts {
		all = append(all, arrow.Field{Name: p, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	return sources.ReadRows(ctx, all, sources.ReadOptions{Progress: progress, Label: "reading " + s.loc.Role + " " + s.loc.URI}, func(ctx context.Context, w *sources.RowWriter) error {
		for _, f := range files {
			if err := readParquetFile(ctx, f, all[:len(fields)], w, lenient); err != nil {
				return err
			}
		}
		return nil
	})
}

func openParquetFile(path string) (*pqarrow.FileReader, func(), error) {
	pf, err := pqfile.OpenParquetFile(path, false)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: sources.BatchRows}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return fr, func() { pf.Close() }, nil
}

// readParquetFile appends the rows of one file: its columns in the order
// and of the types of fields (converted where the file's own type differs),
// then the file's partition values.
func readParquetFile(ctx context.Context, f sources.ScanFile, fields []arrow.Field, w *sources.RowWriter, lenient bool) error {
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
	index := map[string]int{}
	for i, fd := range rr.Schema().Fields() {
		index[fd.Name] = i
	}
	line := int64(1)
	for rr.Next() {
		rec := rr.RecordBatch()
		n := rec.NumRows()
		cols := make([]arrow.Array, 0, len(fields)+len(f.Partition))
		release := func() {
			for _, c := range cols {
				c.Release()
			}
		}
		for _, fd := range fields {
			a, err := convertArray(rec.Column(index[fd.Name]), fd.Type, f.Name, fd.Name, line, lenient)
			if err != nil {
				release()
				return err
			}
			cols = append(cols, a)
		}
		for _, v := range f.Partition {
			cols = append(cols, constantString(v, int(n)))
		}
		schema := arrow.NewSchema(append(append([]arrow.Field{}, fields...), partitionFields(f, w)...), nil)
		out := array.NewRecordBatch(schema, cols, n)
		release()
		err := w.AppendBatch(out, f.Name, line)
		out.Release()
		if err != nil {
			return err
		}
		line += n
	}
	if err := rr.Err(); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}

// partitionFields are the schema fields of the partition columns w expects
// after the files' own columns.
func partitionFields(f sources.ScanFile, w *sources.RowWriter) []arrow.Field {
	all := w.Fields()
	return all[len(all)-len(f.Partition):]
}

// constantString is an array of n copies of v (NULL for nil).
func constantString(v *string, n int) arrow.Array {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	for range n {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(*v)
		}
	}
	return b.NewArray()
}

func fieldNames(fs []arrow.Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

func fieldList(fs []arrow.Field) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name + " " + f.Type.String()
	}
	return "(" + strings.Join(out, ", ") + ")"
}
