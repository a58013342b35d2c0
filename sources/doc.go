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
// The kinds that read files (sources/file, and kcat in sources/kafka) list,
// fingerprint and open them with package sources/fileset, which holds the
// commit rules of file sinks.
package sources
