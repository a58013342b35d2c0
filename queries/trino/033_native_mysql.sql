-- fragment: native_mysql
-- description: MySQL's (and MariaDB's) query for trino/native_columns.sql: every column of the tables whose database
-- description: and name are .Schema and .Table in lower case (Trino's names are lower case; several rows name each
-- description: table found), with its declared type as information_schema.columns writes it (decimal(10,2),
-- description: bit(5), inet6), in declaration order. .Schema and .Table hold no backslash (MySQL's string literals
-- description: read it as an escape).
-- returns: table_schema, table_name, column_name, column_type (text)
SELECT table_schema AS table_schema, table_name AS table_name, column_name AS column_name, column_type AS column_type
FROM information_schema.columns
WHERE lower(table_schema) = {{lit .Schema}} AND lower(table_name) = {{lit .Table}}
ORDER BY table_schema, table_name, ordinal_position
