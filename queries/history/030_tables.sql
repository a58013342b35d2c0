-- statement: tables
-- description: The tables of the attached database .DB, to tell a history database from any other DuckDB file.
-- returns: table_name VARCHAR, one row per table, sorted
SELECT table_name FROM duckdb_tables() WHERE database_name = {{lit .DB}} ORDER BY table_name
