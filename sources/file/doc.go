// Package file holds the input kinds that read files of records: csv
// (aliases tsv and txt), ndjson (alias jsonl) and parquet (alias pq). Each
// reads a path, folder or glob, its files listed, fingerprinted, opened and
// decompressed by package sources/fileset, which applies the commit rules
// of file sinks; each kind's options are in the doc of its Source type
// (csvSource, ndjsonSource, parquetSource).
//
// CSV and NDJSON yield every column as text, exactly as written; Parquet
// keeps its files' types, unified where no value can change (unify.go).
// CSV and Parquet also describe a native scan (sources.Scanner) that an
// engine may run instead of reading the records in Go; both give the same
// rows. RecordLines gives the loader the line each record of a CSV scan
// starts on.
//
// The package registers the kinds with package sources when it is
// imported (sources/all imports every kind).
package file
