-- statement: native_columns
-- description: The columns of a table of catalog .Catalog (a PostgreSQL, MySQL or MariaDB connector) as the database
-- description: behind it declares them, read through the connector's pass-through table function system.query with
-- description: .Native (the database's own query, trino/native_postgresql.sql or trino/native_mysql.sql): compared
-- description: with the columns Trino shows, they tell the columns the connector hides (a numeric without precision
-- description: under decimal_mapping STRICT, a type it does not map) or reads as another value (bit(n) as a boolean,
-- description: time with time zone as a time).
-- returns: table_schema, table_name, column_name, column_type (the declared type, as the database writes it), in
-- returns: declaration order (no row: no such table)
SELECT table_schema, table_name, column_name, column_type
FROM TABLE({{q .Catalog}}.system.query(query => {{lit .Native}}))
