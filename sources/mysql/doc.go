// Package mysql is the input kind mysql (alias mariadb): it reads a MySQL
// or MariaDB table or the result of a query over
// github.com/go-sql-driver/mysql:
//
//	mysql://user@host:3306/database?table=name
//	mariadb://user@host/database?table=other_database.name
//	mysql://user@host/database?query=SELECT+…   (form-encoded)
//	{uri: "mysql://user@host/ledger", table: postings, zero_dates: null}
//
// A URI without a password takes MYSQL_PWD, as the mysql client does; other
// URI parameters are the driver's (tls, timeout, …); results in any
// character set but utf8mb4 (charset=utf8, which is utf8mb3) are refused
// with ErrInvalidLocation, as the server sends a character the set lacks
// as '?'. A table name is
// "name" or "database.name", each part plain or in backticks (`a.b`); it
// is never folded (lower_case_table_names is the server's) and always sent
// quoted with backticks, a backtick doubled, so it cannot inject SQL.
//
// Before the snapshot, the session pins what decides which rows a SELECT
// returns, whatever the server's GLOBAL values or the URI say:
// sql_select_limit to its maximum (18446744073709551615) and, on MariaDB,
// system_versioning_asof to DEFAULT; both are read back, and a session
// that does not keep them (DEFAULT is the GLOBAL value, which may be a
// time) refuses the read. The session's time zone is set to '+00:00' (an
// offset: the server's time-zone tables may be empty), so a TIMESTAMP
// arrives as its UTC value whatever the server's or the URI's zone; then
// one transaction is opened, REPEATABLE READ, READ ONLY, WITH CONSISTENT
// SNAPSHOT. The statement's
// columns are described by running it with LIMIT 0 (a query as a derived
// table) and, for a table, the catalog (information_schema.COLUMNS, which
// gives DECIMAL UNSIGNED's precision that the result metadata reports one
// digit short); a column that cannot be mapped is refused, naming it,
// before any row is read. The rows come over the text protocol and each
// value is parsed straight into its Arrow builder (never through float64).
//
// Two inputs of one run on the same server, as the same user with the same
// settings, read one snapshot: MySQL and MariaDB cannot export a snapshot,
// so the first keeps its connection with the transaction open in the run's
// Group (keyed by a hash of server, user and settings) and the second reads
// on it (after USE of its own database, which does not end the
// transaction). Input.Details records shared_snapshot (true or false),
// shared_snapshot_reason, and snapshot_opened_by; further server (MariaDB
// or MySQL), server_version (VERSION()), database, user (CURRENT_USER()),
// connect_user (USER()), host and port, isolation, server_isolation_level,
// transaction_started_at (UTC_TIMESTAMP(6) in the transaction),
// session_time_zone, system_time_zone, character_set_results,
// sql_select_limit, system_versioning_asof (MariaDB), the GTID
// position (gtid_current_pos on MariaDB, gtid_executed on MySQL) or
// gtid_current_pos_unavailable / gtid_executed_unavailable saying why,
// MariaDB's binlog_snapshot_file and binlog_snapshot_position (the binary
// log position of the snapshot itself) or binlog_snapshot_unavailable, the
// exact sql, each column's MySQL type (COLUMN_TYPE for a table) and Arrow
// type, zero_dates, and for a table table_engine and table_type
// (snapshot_note when the engine is not transactional). __file is the
// table as written (database.name) or "query"; __line the 1-based row.
//
// The type mapping:
//
//	MySQL / MariaDB                         Arrow                 DuckDB
//	TINYINT (TINYINT(1) too: a number)      int8                  TINYINT
//	TINYINT UNSIGNED                        uint8                 UTINYINT
//	SMALLINT, YEAR                          int16                 SMALLINT
//	SMALLINT UNSIGNED                       uint16                USMALLINT
//	MEDIUMINT, INT                          int32                 INTEGER
//	MEDIUMINT UNSIGNED, INT UNSIGNED        uint32                UINTEGER
//	BIGINT                                  int64                 BIGINT
//	BIGINT UNSIGNED                         uint64                UBIGINT (to 18446744073709551615)
//	DECIMAL(p,s), p ≤ 38                    decimal128(p,s)       DECIMAL(p,s)
//	DECIMAL(p,s), 38 < p ≤ 65, s ≤ 38       decimal128(38,s)      DECIMAL(38,s), each value checked
//	FLOAT, DOUBLE                           float32, float64      FLOAT, DOUBLE (as the server
//	                                                              prints them; refused as measures)
//	CHAR, VARCHAR, TEXT…, ENUM, SET, JSON   utf8                  VARCHAR (as the server sends it:
//	                                                              CHAR without trailing spaces;
//	                                                              a SET as 'a,b'; JSON's text)
//	BINARY, VARBINARY, BLOB…                binary                BLOB (BINARY(n) with its 0x00 padding)
//	DATE                                    date32                DATE
//	DATETIME(fsp)                           timestamp[us]         TIMESTAMP, zone-less, as written
//	TIMESTAMP(fsp)                          timestamp[us, UTC]    TIMESTAMP WITH TIME ZONE
//	TIME(fsp)                               duration[us]          INTERVAL (-838:59:59 to 838:59:59)
//	BIT(n)                                  uint64                UBIGINT (the bits as a number)
//
// MariaDB's UUID, INET4 and INET6 arrive as CHAR and load as their text.
// A zero date (0000-00-00, or a zero month or day such as 2024-00-10) in a
// DATE, DATETIME or TIMESTAMP stops the read with the row, column and value
// (ErrZeroDate) unless the input says zero_dates: null, which reads it as
// NULL and counts it per column in Details (zero_dates_read_as_null); a
// date that is no calendar date (2024-02-30 under ALLOW_INVALID_DATES), a
// DECIMAL wider than its column and text that is not UTF-8 stop it always.
// GEOMETRY, VECTOR and any other type are refused before a row is read
// (ErrUnmappedType); cast them in a query. A FLOAT arrives as the server
// prints it in the text protocol, with at most 6 significant digits
// (1234567 as 1234570): read it as CAST(f AS DOUBLE) for the stored value.
//
// The package registers the kind with package sources when it is imported
// (sources/all imports every kind). LoadCSV puts a CSV file into a table,
// as the samples do.
package mysql
