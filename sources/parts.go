package sources

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// PartScanner is the optional fast path of a kind whose records are the
// rows of data files read one after another, some of which an engine can
// read with its own reader (an Iceberg table's Parquet data files to which
// no delete applies), discovered by type assertion as Scanner is.
// ScanParts does what Read does up to the first row and returns the same
// Input and, instead of the records, the parts they are made of, in read
// order. The loader reads a part that has a File with its own reader when
// it reads that file as the kind would, and every other part through
// PartScan.Records, into one relation: the rows, columns, types and
// provenance (__file, __line, __row, the kind's own columns) are those
// Read gives. Errors are those Read would return before its first row.
type PartScanner interface {
	ScanParts(ctx context.Context) (*Input, *PartScan, error)
}

// PartScan describes the records of a PartScanner as parts.
type PartScan struct {
	// Fields are the user fields of the records (the kind's own provenance
	// columns included; __file, __line and __row not), in order, with the
	// Arrow types Read yields them as: the types the engine loads.
	Fields []arrow.Field
	// Constant marks the fields whose value is the same on every row of a
	// part (the kind's provenance of a data file: the snapshot that added
	// it, …), which Part.Values gives; one entry per field.
	Constant []bool
	// Parts are the records' parts, in read order; __row counts across
	// them from 0.
	Parts []Part
	// Records yields the rows of Parts[from:to], in order, as Read yields
	// them (the schema of Read's records), __row counting from firstRow:
	// the rows of the parts before from (a part's rows are known once it
	// is read when a delete applies to it). With part, one more column
	// follows the fields: __part (int32), the index into Parts of the
	// row's part. The caller releases the records.
	Records func(ctx context.Context, from, to int, firstRow int64, part bool) (array.RecordReader, error)
	// SourceRead, when not "", says why every part is read through
	// Records (an Iceberg table read as its changes).
	SourceRead string
	// Decided, when not nil, is called once the parts are read, with how
	// each was read (in Parts order), for the kind's evidence.
	Decided func(reads []PartRead)
}

// PartColumn is the name of the column Records adds with part: true.
const PartColumn = "__part"

// Part is one part of a PartScan: the rows of one data file, in order.
type Part struct {
	// Name is the __file of its rows.
	Name string
	// Values are the part's values of the constant fields (PartScan.
	// Constant), in field order, as text (nil: NULL), read as the fields'
	// types.
	Values []*string
	// Rows is how many rows a part with a File yields: every row of the
	// file, as its footer counts them (0 for a part without a File).
	Rows int64
	// File, when not nil, says the part is every row of a Parquet file in
	// file order, __line the row's 1-based position, which an engine may
	// read itself; nil: only Records reads it (Why says why).
	File *PartFile
	// Why says why File is nil: a delete file applies to it, its columns
	// are not the table's by name, … (for the evidence).
	Why string
}

// PartFile is the Parquet file of a part and the column of it that gives
// each field that is not constant.
type PartFile struct {
	// Path is the file to open.
	Path string
	// Columns are the file's top-level columns read, read as they are: one
	// for each field that is not constant, in field order.
	Columns []string
	// Schema, when not "", is a text that only files of the same columns
	// of the same Parquet types share (from the file's footer): the loader
	// asks the engine how it reads one file of each Schema, "" each file.
	Schema string
}

// PartRead says how the loader read one part: Native when an engine read
// its file itself; else Why says why it was read through Records (the
// kind's reason, or the engine's: a column the engine would read as
// another type).
type PartRead struct {
	Native bool
	Why    string
}
