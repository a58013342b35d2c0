// Package sqlserver holds what the kinds that read a database server
// (sources/postgres, sources/mysql) share: how a table name of at most two
// parts is split (SplitTableName) and merged with a query (TableOrQuery),
// how a password is scrubbed from an error a driver returns (Scrub), and
// the helpers of their type mappings (DecimalType, MaxDecimalDigits,
// EngineType, QuoteCut). It knows no server: each kind brings its own
// quoting rules and driver.
package sqlserver
