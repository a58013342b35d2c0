// Package sources reads the two populations a reconciliation compares — the
// source records (what should have been posted) and the committed sink
// output (what was posted) — and yields each as Arrow record batches
// (github.com/apache/arrow-go/v18) with provenance, together with a
// description of what was read (Input) for the evidence. It knows no
// engine: package internal/load puts a Source into DuckDB as a table.
//
// Inputs are addressed by a URI. A kind is chosen, in this order, by the
// spec's `kind:` option, by a scheme ("postgres://…"), by a "kind:" prefix
// ("csv:exports/part-*"), or by the file extension (.csv .tsv .txt .parquet
// .pq .ndjson .jsonl, optionally followed by .gz or .zst). Kinds register
// themselves with Register, in the manner of database/sql drivers; the
// contract a kind implements is the doc comment of Source.
//
// # Records
//
// Every kind yields the input's columns in input order, under their input
// names, followed by three provenance columns:
//
//	__file  utf8   the file (relative to the spec's folder), the table
//	               (schema.name) or "query" the record came from
//	__line  int64  its position there: the physical line the record starts
//	               on for CSV (the header is line 1) and NDJSON, the 1-based
//	               row for Parquet and PostgreSQL
//	__row   int64  0-based position across the whole input, in read order
//
// Batches hold at most BatchRows rows or BatchBytes of values, and at most
// one decoded batch waits for the consumer, so memory does not grow with the
// input (RowWriter, the one batch builder every row-producing kind uses).
//
// Column types: text formats (CSV, NDJSON) yield every column as text exactly
// as written — nothing is sniffed, so an id "0123" stays "0123" and an amount
// "1.5" after row 20,480 stays "1.5" — unless the location declares a type
// with the `types:` option (Input.Declared), which the loader applies with a
// check of every value. Typed formats (Parquet, PostgreSQL) keep their
// declared types. Turning measures into exact decimals is the checks
// package's job, done identically for every kind.
//
// # Files
//
// File kinds share three steps, each in one place: ListFiles resolves a
// path, folder or glob (** across folders) into the files read and the
// files skipped, with the commit rule and its source (list.go: Flink
// FileSink in-progress and pending files, BucketingSink states and
// valid-length side files, S3 multipart temporaries, commit markers,
// staging folders), cutting a part file to the committed length a
// valid-length side file gives (validlength.go) and reading Hive partition
// folders into columns (partition.go); Fingerprint records each file's size and SHA-256; OpenFile
// opens a file for reading, decompressing it by extension (.gz with
// compress/gzip, .zst with github.com/klauspost/compress/zstd) for every
// kind, so line numbers are those of the decompressed text. CSV and Parquet
// also describe a native scan (Scanner) that an engine may run instead of
// reading the records in Go; both give the same rows.
package sources
