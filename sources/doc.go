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
// .pq .ndjson .jsonl, optionally followed by .gz or .zst); a folder (or a
// glob without an extension) given without any of these is read as the
// file kind its files' extensions name when they all carry the same one,
// and refused, naming the extensions found and the prefixes to write, when
// they do not (Open). Kinds register
// themselves with Register, in the manner of database/sql drivers; the
// contract a kind implements is the doc comment of Source. This package
// registers none: a program imports the kinds it reads, or sources/all for
// every kind.
//
// # Layout
//
// This package is the contract and what every kind uses: Source, Location,
// Input and Column; the optional Schemer, Scanner, PartScanner and
// UncommittedReader; a table's ChangeLog; the registry (Register,
// RegisterFileKind, Open, Kinds, Aliases, KindOf, and SetLister, with
// which sources/fileset lists a folder whose kind Open reads from its
// files); the one batch builder
// (ReadRows, RowWriter); option reading (Options, DeclaredTypes,
// DeclaredFormats); the run's Group; Progress; the provenance columns.
// Each input kind is a package of its own below it:
//
//	sources/file       csv (tsv, txt), ndjson (jsonl), parquet (pq)
//	sources/postgres   postgres (postgresql)
//	sources/mysql      mysql (mariadb)
//	sources/kafka      kafka, kcat (kafkacat)
//	sources/iceberg    iceberg, iceberg+sql
//
// What several kinds share is a package of its own too:
//
//	sources/fileset             listing with the commit rules of file sinks,
//	                            opening with decompression, fingerprints
//	sources/internal/sqlserver  table names, password scrubbing and type
//	                            helpers of postgres and mysql
//	sources/internal/jsontext   what the JSON readers check alike
//	sources/all                 imports every kind
//	sources/sourcetest          the conformance suite every kind runs
//
// A new kind is a new package below sources/ that registers itself in an
// init function, passes sourcetest.Run, and is imported by sources/all.
//
// # Rules
//
// TestLayout (layout_test.go) holds the code to these rules:
//
//  1. A kind package never imports another kind package, nor the engine
//     (internal/duck), the loader (internal/load) or the checks (checks),
//     directly or through a shared package: what two kinds need goes to a
//     shared package, which imports none of them either. (The loader and
//     the command may import a kind; a kind's tests may too.)
//  2. No non-test file of this package is named after a kind: a kind's
//     code lives in its own package.
//  3. Names do not repeat their package: postgres.ErrUnmappedType and
//     mysql.ErrUnmappedType, mysql.ParseTableName, kafka.ErrRead, never
//     ErrMyUnmappedType or PGColumn.
//
// Error messages keep the "sources: …" (or "kafka: …") prefix they had
// when every kind lived in this package, so messages and evidence read as
// before.
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
