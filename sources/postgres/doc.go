// Package postgres is the input kind postgres (alias postgresql): it reads
// a PostgreSQL table or the result of a query, with github.com/jackc/pgx:
//
//	postgres://user@host:5432/db?table=schema.name
//	postgres://user@host/db?query=SELECT+…      (form-encoded)
//	{uri: "postgres://user@host/db", table: ledger.postings}
//	{uri: "host=h dbname=db", kind: postgres, query: "SELECT …"}
//
// What the URI leaves out comes from the standard PG* environment variables
// and ~/.pgpass, as libpq does. An unquoted table name is folded to lower
// case; "Quoted"."Names" are kept; the name is always quoted as an
// identifier in the SQL, never spliced. The rows are read in one REPEATABLE
// READ, READ ONLY transaction in PostgreSQL's binary format and decoded
// straight into Arrow builders. Input.Details records server_version,
// database, user, snapshot (pg_current_snapshot()), wal_lsn
// (pg_current_wal_lsn(), or the replay position on a standby; when it cannot
// be read, wal_lsn_unavailable says why), transaction_started_at, the exact
// sql run and each column's PostgreSQL and Arrow types. __file is the table
// (schema.name) or "query"; __line is the 1-based row in read order.
//
// Two inputs of a run (Location.Group) in the same database of the same
// server (host and port as the connection strings give them) read one
// snapshot: the first exports it (pg_export_snapshot()) and keeps its
// transaction open in the Group, the second imports it (SET TRANSACTION
// SNAPSHOT). Input.Details records shared_snapshot, shared_snapshot_reason,
// exported_snapshot and snapshot_opened_by or snapshot_shared_with, the
// fields of the MySQL kind's shared read.
//
// Schema (Schemer) tells the columns before any input is read: on a
// connection of its own, closed before it returns, it describes the
// statement Read will run (Parse and Describe, never Execute) outside any
// transaction, so it neither takes nor disturbs the read's snapshot, and
// maps the result's types as Read does. An unconstrained numeric has no
// type there (its scale is the pre-scan's, in the read's snapshot).
//
// Every value keeps its exact value. The type mapping:
//
//	PostgreSQL                         Arrow                 DuckDB
//	smallint, integer, bigint          int16, int32, int64   SMALLINT, INTEGER, BIGINT
//	numeric(p,s), p ≤ 38               decimal128(p,s)       DECIMAL(p,s)
//	numeric(p,s), p > 38               decimal128(38,s)      DECIMAL(38,s)
//	numeric (unconstrained)            decimal128(38,s)      DECIMAL(38,s), s = largest
//	                                                         scale in the data (pre-scan)
//	real, double precision             float32, float64      FLOAT, DOUBLE
//	text, varchar(n), char(n), name    utf8                  VARCHAR (char(n) keeps its
//	                                                         padding as the server sends it)
//	boolean                            bool                  BOOLEAN
//	date                               date32                DATE
//	timestamp (without time zone)      timestamp[us]         TIMESTAMP (zone-less)
//	timestamptz                        timestamp[us, UTC]    TIMESTAMP WITH TIME ZONE
//	uuid                               utf8 (canonical)      VARCHAR
//	json, jsonb                        utf8 (the JSON text)  VARCHAR
//	bytea                              binary                BLOB
//
// A numeric NaN or ±Infinity, a value with more than 38 digits, and a date
// or timestamp ±infinity stop the read with an error naming the row, the
// column and the value. Any other type (interval, time, arrays, enums,
// domains, …) is an error naming each such column before a row is read;
// cast it in a query. Floating-point columns are read as they are but are
// refused as measures by package checks.
//
// The package registers the kind with package sources when it is imported
// (sources/all imports every kind). CopyCSV puts a CSV file into a table,
// as the samples do.
package postgres
