package sources

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/reconcile-dev/reconcile/internal/fault"
)

// LocationSnapshot is the location form (Input.LocationForm) of a kind
// whose one file may be read more than once, each time as committed by
// another snapshot (an Iceberg table): file:line@snapshot, from __file,
// __line and the kind's own provenance column __snapshot.
const LocationSnapshot = "file:line@snapshot"

// Provenance column names, the last three columns of every kind's records
// (see the package doc).
const (
	FileColumn = "__file"
	LineColumn = "__line"
	RowColumn  = "__row"
)

// Errors returned by Open, and by Read or Scan when the location turns out
// to be unusable. Both mean the location itself is wrong (a usage error), as
// opposed to an input that could not be read.
var (
	// ErrUnknownKind: no registered kind matches the location.
	ErrUnknownKind = fault.Usage.New("sources: unknown kind")
	// ErrInvalidLocation: the URI or one of its options is malformed.
	ErrInvalidLocation = fault.Usage.New("sources: invalid location")
)

// Location says where an input is.
type Location struct {
	// Role is "source" or "sink"; it names the input in messages.
	Role string
	// URI is the path, glob or connection URI as given in the spec or flag.
	URI string
	// Options are the kind-specific fields of the spec's long form
	// ({uri: …, delimiter: ";"}); an option a kind does not know is an
	// ErrInvalidLocation.
	Options map[string]any
	// BaseDir is the folder relative file paths are resolved against (the
	// spec file's folder, or the working directory for flags).
	BaseDir string
	// Extension is set by Open when it read the kind of a folder or glob
	// given without one from its files' extensions: the extension they all
	// carry, in lower case, without the dot or a .gz/.zst after it ("tsv").
	// A kind whose defaults follow the file extension reads it as it reads
	// the URI's (csv: a tab delimiter for tsv).
	Extension string
	// Progress, when set, receives the progress of a long read: a live
	// line of rows and rows/s when it is a terminal, else one summary line.
	Progress io.Writer
	// Group is shared by the inputs of one run (nil: none): a kind that can
	// read several inputs on one server in one snapshot keeps there what the
	// next input needs (see Group).
	Group *Group
}

// Source is one input of a reconciliation: it reads the input and yields its
// records as Arrow record batches, and it describes what it read. It names
// no engine; package internal/load turns a Source into a DuckDB table.
//
// A kind implements Source as follows (the numbered steps are the contract;
// sourcetest.Run checks them for every kind):
//
//  1. Register an Opener under the kind's name and aliases in an init
//     function. The Opener only parses and validates the Location: it does
//     no I/O and reads no environment variable the Location does not name.
//     Options are read with the kind's own names; an unknown option, a
//     malformed one or a URI that cannot work is an ErrInvalidLocation.
//  2. Read does the I/O up to the first row before it returns: it lists
//     and fingerprints files (fileset.ListInput) or connects and fixes
//     a snapshot, and it maps every column to an Arrow type that holds each
//     value exactly, refusing a column it cannot map (naming it) before any
//     row is read. It returns the Input — Role, Kind, Location (without a
//     password), Files and Ignored or Details, Declared — and the records.
//     Rows and Columns are left to whoever loads the records.
//  3. The records are built by the shared batch builder: ReadRows with a
//     fill function that, for each row, appends one value (or null) to
//     every column's builder (RowWriter.Column) and then calls
//     RowWriter.EndRow with the row's file and line. The builder appends
//     the provenance columns, numbers __row, cuts batches at BatchRows rows
//     or BatchBytes of values, keeps at most one batch waiting, honours ctx
//     between batches and reports progress. A kind whose library already
//     yields Arrow batches hands them to RowWriter.AppendBatch. A kind never
//     builds provenance or batches by hand.
//  4. The record schema is the user columns in input order, then __file,
//     __line and __row. A user column with a provenance name is refused
//     (ErrInvalidLocation). Values are exact: text as written, decimals as
//     decimal128 (never float64), instants as UTC timestamps. __file and
//     __line locate a record in the kind's own terms (a file and line, a
//     table and row); a kind with more to say about where a record came
//     from (a Kafka partition, offset and timestamp) adds columns of its
//     own, named in its kind doc.
//  5. A value that cannot be represented exactly, or a row that cannot be
//     read, ends the records with an error (Err) that names the file or
//     table, the line or row, the column and the value. Nothing is skipped
//     silently and nothing is guessed.
//  6. Cancellation: once ctx is cancelled, Read returns, or the records
//     end with, an error for which errors.Is(err, context.Canceled) holds
//     (ReadRows ensures it for the records).
//  7. The caller releases the records (Release), which stops the reading
//     and frees every batch, and then calls Close; Close releases anything
//     the Source holds and is safe to call when Read was never called.
//  8. Nothing a Source returns — Input, errors — contains a password.
//
// A file kind an engine can read with its own reader may also implement
// Scanner, the optional fast path, and a kind whose records are data files
// read one after another, some of which an engine can read itself,
// PartScanner; Read remains required and must give the same records.
type Source interface {
	Read(ctx context.Context) (*Input, array.RecordReader, error)
	Close() error
}

// Schemer is the optional capability of a Source that can tell its columns
// without reading any record — from a CSV header, a Parquet footer, a
// database catalog — discovered by type assertion. Schema returns the user
// columns in input order (provenance excluded), each with the type it will
// load as (the declared type where the types: option names one), so that a
// spec naming a column the input lacks, or two columns of incomparable
// types, is refused before any row is read. A kind that cannot know its
// columns without reading its records (Kafka, whose fields are the JSON
// values' keys) does not implement it; its columns are checked once loaded.
// Errors are those Read would return for the same reason.
type Schemer interface {
	Schema(ctx context.Context) ([]Column, error)
}

// Scanner is the optional fast path of a file kind an engine can read
// natively (CSV, Parquet), discovered by type assertion as database/sql
// discovers a driver's optional interfaces. Scan does what Read does up to
// the first row — lists and fingerprints the files, reads and checks the
// CSV header — and returns the same Input and, instead of the records, a
// description of the files (Scan). The loader decides whether to read them
// itself or to call Read; both must give the same rows, columns and
// provenance.
type Scanner interface {
	Scan(ctx context.Context) (*Input, *Scan, error)
}

// BadRecordLister is implemented by a Source whose Read skips, while the
// records are read, those it cannot read (bad_records: report): once the
// records Read returned have been read to their end (or released), its
// BadRecords are those skipped, in read order, for Input.BadRecords. A
// kind that finds its bad records before Read returns lists them in the
// Input itself.
type BadRecordLister interface {
	BadRecords() []BadRecord
}

// Format is the file format of a Scan.
type Format string

// The formats a Scan describes.
const (
	// FormatCSV is delimited text (RFC 4180 with a chosen delimiter and
	// quote): every column is text, read as written.
	FormatCSV Format = "csv"
	// FormatParquet is Apache Parquet: each file declares its columns'
	// types.
	FormatParquet Format = "parquet"
)

// Scan describes the files of an input for an engine that reads them with
// its own reader. It is engine-neutral: it says what the files hold and how
// they are written, not how to read them.
type Scan struct {
	// Format is the files' format.
	Format Format
	// Files are the files to read, in read order.
	Files []ScanFile
	// Columns (CSV) are the column names every file's header gives (column0,
	// column1, … without a header); each column is text, read as written and
	// never sniffed: an empty field is NULL. Nil for Parquet, whose files
	// declare their own.
	Columns []string
	// Header (CSV) says the first record of each file is the header.
	Header bool
	// Delimiter and Quote (CSV) are one character each. A quote inside a
	// quoted field is written twice (RFC 4180), so Quote is also the
	// escape character.
	Delimiter, Quote string
	// FirstLine is the __line of each file's first record: 2 for CSV with
	// a header, else 1 (for Parquet, the 1-based row).
	FirstLine int64
	// Partitions are the partition columns (text) that follow the files'
	// own columns; each file's values are ScanFile.Partition.
	Partitions []string
	// Types (Parquet) are the columns of the input, in order, with the
	// DuckDB type each is read as: a file whose own type differs (a
	// narrower integer, a decimal of other precision or scale) is cast to
	// it, which changes no value (see the parquet kind, sources/file). A
	// type of "" is one no file needs cast: every file declares it alike.
	// Nil for CSV.
	Types []Column
	// Encoding (CSV) is the files' text encoding when it is not UTF-8 (the
	// encoding: option; "" for UTF-8): an engine that reads only UTF-8
	// reads such a scan through Read, which decodes it.
	Encoding string
	// SourceRead, when not "", says why an engine must read these files
	// through Read rather than with its own reader: a Parquet DECIMAL of
	// more than 38 digits (DuckDB 1.5's read_parquet reads it as a wrong
	// DOUBLE), or, with bad_records: report, a listed value the engine's
	// cast to the column's type would fail on.
	SourceRead string
}

// ScanFile is one file of a Scan.
type ScanFile struct {
	// Path is the file to open.
	Path string
	// Name is the file as __file and the evidence name it: relative to the
	// location's base folder when it lies below it.
	Name string
	// Compression is how the file is compressed, by its extension.
	Compression Compression
	// Size is the file's size in bytes, as stored, when it was listed.
	Size int64
	// ValidLength, when not nil, is the valid-length side file that says
	// how many of the file's bytes are committed (see ValidLength); a kind
	// reads only those (fileset.OpenScanFile). An engine reading the file itself must
	// honour it too: the loader reads a scan with a cut file through Read.
	ValidLength *ValidLength
	// Columns (Parquet) are the file's own columns with the DuckDB type of
	// each, from its footer.
	Columns []Column
	// Partition are the file's values of the input's partition columns
	// (Input.Partitions, in order), read from its folder names; nil for
	// NULL (the default partition).
	Partition []*string
}

// Cut says only part of the file is committed: its valid length is shorter
// than the file.
func (f ScanFile) Cut() bool { return f.ValidLength != nil && f.ValidLength.Length < f.Size }

// Compression is how a file's bytes are compressed, decided by its name
// alone (fileset.CompressionOf): the content is never sniffed.
type Compression string

// The compressions a file kind reads (fileset.Open).
const (
	// NoCompression: the file is read as it is.
	NoCompression Compression = ""
	// Gzip: RFC 1952 (extension .gz), read with compress/gzip; several
	// concatenated members are read as one stream, as gzip -d does.
	Gzip Compression = "gzip"
	// Zstd: RFC 8878 (extension .zst), read with
	// github.com/klauspost/compress/zstd.
	Zstd Compression = "zstd"
)

// ValidLength is a valid-length side file applied to a part file: only the
// first Length bytes of the part file, as stored, are its committed output.
//
// Flink's legacy BucketingSink (and RollingSink before it), restoring from a
// checkpoint on a file system without truncate(), leaves the part file at
// its full length — the bytes written after the checkpoint included — and
// writes beside it "<validLengthPrefix><part><validLengthSuffix>" (by
// default "_part-0-0.valid-length"; "." is a common prefix too) holding the
// committed length, written with Java's DataOutputStream.writeUTF of
// Long.toString(length): a 2-byte big-endian byte count, then the decimal
// digits in (modified) UTF-8 (BucketingSink.handleRestoredBucketState;
// java.io.DataOutputStream.writeUTF).
//
// The length counts the bytes as stored: for a compressed part file, the
// compressed bytes (the sink's writer reports the position of the
// underlying stream). Reading one is decided in fileset.OpenScanFile;
// the side file is found and parsed by fileset.ParseValidLength.
type ValidLength struct {
	// SideFile is the side file (its path; relative to the spec's folder in
	// an Input).
	SideFile string `json:"side_file"`
	// SideSHA256 is the SHA-256 of the side file's bytes, lower-case hex.
	SideSHA256 string `json:"side_file_sha256"`
	// Length is the committed length of the part file in bytes, as stored.
	Length int64 `json:"length"`
	// PartBytes is the part file's size when it was listed.
	PartBytes int64 `json:"-"`
}

// Opener builds a Source from a Location without doing any I/O.
type Opener func(loc Location) (Source, error)

// Input describes an input that was read, for the evidence.
type Input struct {
	// Role is "source" or "sink".
	Role string `json:"role"`
	// Kind is the registered kind that read it ("csv", "postgres", …).
	Kind string `json:"kind"`
	// Location is the URI with any password removed.
	Location string `json:"location"`
	// Files lists every file read, with its SHA-256, in read order. The
	// file kinds hash their files while the run reads them: SHA256 is set
	// once Hashed returns.
	Files []File `json:"files,omitempty"`
	// Skipped lists every file the location matched that was not read as
	// records, in path order, each with the reason (fileset.List): not
	// committed output, a commit marker, a valid-length side file. For an
	// uncommitted file read to label findings, the loader sets its
	// fingerprint and rows, or why it could not be read.
	Skipped []SkippedFile `json:"skipped_files,omitempty"`
	// Ignored are the paths of Skipped, as schema_version 1 of the evidence
	// first listed them (ignored_files); kept for its readers.
	Ignored []string `json:"ignored_files,omitempty"`
	// Partitions are the partition columns read from the files' folder
	// names (the partitions: option), in order; they follow the files'
	// own columns.
	Partitions []string `json:"partitions,omitempty"`
	// Rows is the number of records loaded; set by the loader.
	Rows int64 `json:"rows"`
	// Columns are the loaded columns, provenance columns excluded, with
	// the types the engine holds them in; set by the loader.
	Columns []Column `json:"columns"`
	// NotRead are the input's columns the loader did not read because the
	// run asked for others only (load.Options.Columns), with their types;
	// set by the loader.
	NotRead []Column `json:"columns_not_read,omitempty"`
	// ReadInPlace says the input was not copied into DuckDB: its relation
	// is a view over its files (load.Options.View); set by the loader.
	ReadInPlace bool `json:"read_in_place,omitempty"`
	// Details holds kind-specific facts an auditor needs to say "as of
	// what" the input was read (a database snapshot, the SQL run, …).
	Details map[string]any `json:"details,omitempty"`
	// Relation, for a database table read whole (no query), names the
	// table as the server knows it, so two inputs of one table compare
	// equal however their locations spell it: "postgres <host>:<port>
	// <database> relation <oid>" (the table's OID, as the server resolved
	// the name), "mysql <address> <database>.<table>". Empty otherwise.
	Relation string `json:"-"`
	// TimeZone is the IANA zone the input's zone-less timestamps were read
	// in (its time_zone:, else the spec's, else UTC); set by the loader.
	TimeZone string `json:"time_zone,omitempty"`
	// Declared are the column types the location declares (the types:
	// option), sorted by column name: the loader converts each column to
	// its type, checking every value. They show in Columns once loaded.
	Declared []Column `json:"-"`
	// Formats are how the input writes dates, timestamps and numbers (the
	// dateformat:, timestampformat:, decimal_separator: and thousands:
	// options of a text kind): the loader reads the columns they concern
	// with them, each value checked. The zero value for the defaults.
	Formats ValueFormats `json:"-"`
	// LocationForm is how an exception's location renders from __file and
	// __line: LocationFileLine ("", file:line) for file and database
	// kinds, LocationOffset (topic[partition]@offset) for Kafka,
	// LocationSnapshot (file:line@snapshot) for an Iceberg table.
	LocationForm string `json:"-"`
	// Provenance are the kind's own provenance columns (rule 4: Kafka's
	// __partition, __offset, __timestamp, __header_<name>): loaded and
	// listed in Columns, but never compared as a record's value.
	Provenance []string `json:"-"`
	// Notes are warnings about how the input was read that make a verdict
	// suspect (records of aborted transactions read under
	// read_uncommitted); the run keeps them with its notes.
	Notes []string `json:"-"`
	// ReportsBadRecords is set when the location asks for records that
	// cannot be read to be listed (bad_records: report) instead of
	// stopping the run: a record that does not decode, a value the kind or
	// the engine would read changed, or one that does not read as its
	// declared type or as the comparison needs; BadRecords are those
	// records, in read order (the loader adds those of declared types and
	// formats, and removes from the table those an engine read). They
	// count as not read, and a run fails when any is listed.
	ReportsBadRecords bool        `json:"-"`
	BadRecords        []BadRecord `json:"-"`
	// ReportsCommitHistory is set by a kind that reads a history of
	// commits with its input (an Iceberg table's snapshots); CommitHistory
	// is what that history shows, in the kind's order. The checks list it
	// (commit_history, commit_history_info): an Exception fails the run.
	ReportsCommitHistory bool            `json:"-"`
	CommitHistory        []CommitFinding `json:"-"`
	// ChangeLog, when not nil, says the records are a table's changes
	// (rows inserted and deleted, an Iceberg table read with changes:)
	// and names their key: the loader adds to CommitHistory every key
	// inserted while an earlier insert of it was live.
	ChangeLog *ChangeLog `json:"-"`
}

// CommitFinding is one fact of an input's commit history (Input.
// CommitHistory): a commit that counts rows twice or replays a checkpoint
// (Exception), or one listed for information.
type CommitFinding struct {
	// Finding names it in the kind's words (checkpoint_committed_twice,
	// data_file_added_twice, …; the kind's doc lists them).
	Finding   string
	Exception bool
	// Commit is the commit it is about (an Iceberg snapshot id); Other,
	// when not "", the earlier commit it repeats.
	Commit, Other string
	// Detail says it in a sentence.
	Detail string
}

// Location forms (Input.LocationForm): how an exception's location renders
// from __file and __line.
const (
	// LocationFileLine is file:line (every file and database kind; "").
	LocationFileLine = ""
	// LocationOffset is topic[partition]@offset: __file is topic[partition],
	// __line the offset.
	LocationOffset = "topic[partition]@offset"
)

// BadRecord is a record that was not loaded because it could not be read
// (bad_records: report, Input.BadRecords): where it is, the value that
// could not be read and why.
type BadRecord struct {
	// Location is topic[partition]@offset, or file:line (a Parquet file's
	// row number).
	Location string `json:"location"`
	// Column and Value are the column and the value (nil for NULL) that
	// could not be read; Column is "" for a record that does not decode as
	// a whole (a Kafka value that is not JSON, a CSV line of another
	// number of fields).
	Column string  `json:"column,omitempty"`
	Value  *string `json:"value,omitempty"`
	// Reason says what was expected and what was found.
	Reason string `json:"reason"`
	// File and Line, when File is not "", are the record's __file and
	// __line in the records an engine reads all the same (it reads whole
	// files): the loader removes that row. A Parquet value that DuckDB
	// would read changed is found in the file itself before it is read.
	File string `json:"-"`
	Line int64  `json:"-"`
}

// Column is one column of an input: its name and type. The type is a SQL
// type name ("VARCHAR", "DECIMAL(18,2)", "TIMESTAMP WITH TIME ZONE"): as
// declared in a types: option, or as the engine holds the loaded column.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// RenamedFrom, for a loaded column the spec renamed (rename:), is its
	// name in the input; Name is the control's. Set by the loader.
	RenamedFrom string `json:"renamed_from,omitempty"`
}

// File is one file read, fingerprinted.
type File struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	// ValidLength, when not nil, is the valid-length side file that cut
	// the file: only its first ValidLength.Length bytes were read.
	ValidLength *ValidLength `json:"valid_length,omitempty"`

	// state is what the fingerprint kept of the file (Track), which
	// Unchanged and Input.Hashed consult.
	state FileState
}

// FileState is what fingerprinting a file (fileset.Fingerprint, the file
// kinds' listing) keeps of it while the run reads it: the state it was in
// when listed, and its SHA-256 being computed.
type FileState interface {
	// Unchanged reports an error wrapping ErrChanged, naming the file as
	// name, when the file is no longer the one fingerprinted.
	Unchanged(name string) error
	// Hashed waits until the file's SHA-256 is computed and returns it
	// (lower-case hex) with the number of bytes hashed, or the error that
	// stopped it, naming the file.
	Hashed() (sha256 string, n int64, err error)
}

// Track keeps s, what fingerprinting f kept of it, for Unchanged and
// Input.Hashed.
func (f *File) Track(s FileState) { f.state = s }

// ErrChanged is in the chain of the error of a file that changed after
// it was fingerprinted: what was read may not be what the evidence's
// SHA-256 describes. A runtime error (exit 3).
var ErrChanged = fault.Runtime.New("sources: input file changed while the run read it")

// Unchanged reports an error wrapping ErrChanged when the file is no
// longer the one fingerprinted, as its FileState tells (fileset's: another
// file at its path, another size or modification time, or another inode
// change time where the system gives one, so bytes rewritten in place with
// the size and modification time restored are caught too). A File not
// made by a fingerprint (no FileState) is taken as unchanged.
func (f File) Unchanged() error {
	if f.state == nil {
		return nil
	}
	return f.state.Unchanged(f.Path)
}

// Hashed waits until the SHA-256 of every file of the input is computed
// and sets each File.SHA256. Call it once the last statement over the
// input has run, before File.Unchanged. Errors: a file that could not be
// read to its end, naming it; ErrChanged for one that held another number
// of bytes than when it was listed.
func (in *Input) Hashed() error {
	for i := range in.Files {
		if err := in.Files[i].hashed(); err != nil {
			return err
		}
	}
	return nil
}

// hashed waits for f's SHA-256 and sets f.SHA256. Errors: the read error,
// naming the file; ErrChanged when it held another number of bytes than
// when it was listed.
func (f *File) hashed() error {
	if f.state == nil {
		return nil
	}
	sum, n, err := f.state.Hashed()
	if err != nil {
		return err
	}
	if n != f.Bytes {
		return fmt.Errorf("%w: %s was %d bytes when listed, %d bytes when hashed", ErrChanged, f.Path, f.Bytes, n)
	}
	f.SHA256 = sum
	return nil
}

// SkippedFile is a file a location matched that was not read as records.
type SkippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Uncommitted says it holds output written but not committed: it is
	// read, when readable, only to label findings.
	Uncommitted bool `json:"uncommitted,omitempty"`
	// Bytes and SHA256 fingerprint an uncommitted file that was read; Rows
	// is the number of records it held (up to its last line break for
	// uncompressed text); ReadError says why it could not be read.
	Bytes     int64  `json:"bytes,omitempty"`
	SHA256    string `json:"sha256,omitempty"`
	Rows      *int64 `json:"rows,omitempty"`
	ReadError string `json:"read_error,omitempty"`
}

// UncommittedReader is the optional capability of a file kind to read, one
// at a time, the uncommitted files its listing skipped (Input.Skipped with
// Uncommitted), discovered by type assertion after Read or Scan. Read and
// Scan never return their rows: they are not the input's records. The
// records are the file's own columns (its own header or schema, the same
// options, partition columns as Read gives them), then the provenance
// columns. A text file without compression is read up to its last line
// break (an in-progress part file usually ends inside the record being
// written). Errors are those Read would return for the file; the caller
// records them as the reason the file could not be read.
type UncommittedReader interface {
	ReadUncommitted(ctx context.Context, name string) (array.RecordReader, error)
}
