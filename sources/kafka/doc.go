// Package kafka holds the input kinds kafka and kcat (alias kafkacat). Kind
// kafka reads a bounded snapshot of one or more topics with
// github.com/twmb/franz-go:
//
//	kafka://broker1:9092,broker2:9092/topic
//	kafka://broker:9092/t1,t2?isolation=read_uncommitted     (URI parameters are options)
//	{uri: "kafka://broker:9092/", topic_regex: "orders-.*", start: "2026-11-27T00:00:00Z"}
//
// Options: isolation (read_committed, the default, or read_uncommitted);
// start (earliest, an RFC 3339 instant, or offsets "P:OFF,…",
// "TOPIC:P:OFF,…", {P: OFF} or {TOPIC: {P: OFF}}, every partition named);
// end (latest, an instant, or offsets); value (json, string, bytes); key
// (string, json, bytes, none); bad_records (fail or report); types;
// topic_regex; sasl_mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512),
// sasl_user, sasl_password or sasl_password_env (or user:password in the
// URI); tls, tls_ca_file, tls_cert_file, tls_key_file, tls_server_name.
//
// At the start Read lists, per partition, the end offset — the last stable
// offset under read_committed (kadm ListCommittedOffsets), the high
// watermark under read_uncommitted — and fetches exactly [start, end): the
// next offset of a fetch is taken from its record batches, commit and abort
// markers and aborted records included, so a read never waits for a record
// past the end. Input.Details records brokers, topics, isolation_level,
// offsets_listed_at and, per partition, start_offset, end_offset, records,
// bad_records and offsets_without_record (markers, aborted or compacted
// records: never missing ones); with read_uncommitted, isolation_note (also
// a WARNING in Input.Notes).
//
// Records as rows: with value: json each top-level field of the value is a
// text column named by the field, its value kept as written (numbers as
// their literal text, strings unquoted, true/false, a nested object or
// array as its compact JSON text, the ndjson kind's: jsontext.AppendText);
// each field of a nested object is also a
// column named by its path (a.b, a.b.c). A null value (a tombstone) is a
// row of NULLs. With value: string or bytes the value is one column value
// (VARCHAR or BLOB). The key is column key (key: string or bytes), or its
// fields are columns key.<field> (key: json). Columns are in order of first
// appearance in (topic, partition, offset) order. JSON is RFC 8259: a
// field given twice (or a key twice in any object within), a number such
// as NaN or 01, bytes that are not UTF-8 make a record bad. Then the
// kind's provenance columns (Input.Provenance): __partition (int32),
// __offset (int64), __timestamp (timestamp[ms, UTC]) and each header as
// __header_<name> (text; when some record repeats the name, the JSON array
// of each record's values: HeaderPrefix); __file is topic[partition] and
// __line the offset, so a location reads topic[partition]@offset
// (Input.LocationForm = LocationOffset). A bad record stops the read with
// an ErrRecord naming topic, partition and offset, or, with
// bad_records: report, is listed in Input.BadRecords. Because the columns
// are known only once every record is decoded, the decoded rows wait as
// chunks, one per fetched part of a partition (at most BatchBytes), each
// holding the columns it has: in memory up to half the Go heap's soft limit
// (runtime/debug.SetMemoryLimit, which a run sets from its budget; 1 GiB
// without one), the rest in a temporary spool file (os.TempDir) as Arrow
// IPC streams. The chunks become the record batches as they are (a column
// a chunk lacks is all null); the file is removed when the records are
// read.
//
// Kind kcat reads `kcat -C -J` dumps (one JSON envelope per line: topic,
// partition, offset, tstype, ts, key, payload, headers) from a file or glob
// (kcat:dump.jsonl, or kind: kcat) as the same rows, provenance and
// locations; its isolation option (unknown by default) declares the level
// kcat read with, and an undeclared or read_uncommitted level is noted.
//
// The package registers both kinds with package sources when it is
// imported (sources/all imports every kind).
package kafka
