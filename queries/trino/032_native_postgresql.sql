-- fragment: native_postgresql
-- description: PostgreSQL's query for trino/native_columns.sql: every column of the tables (relations of any kind a
-- description: connector lists: tables, views, materialized views, foreign and partitioned tables) whose schema and
-- description: name are .Schema and .Table in lower case (Trino's names are lower case; several rows name each
-- description: table found), with its declared type as format_type writes it (numeric, numeric(12,2), bit(3),
-- description: integer[]), in declaration order.
-- returns: table_schema, table_name, column_name, column_type (text)
SELECT n.nspname::text AS table_schema, c.relname::text AS table_name, a.attname::text AS column_name,
       format_type(a.atttypid, a.atttypmod) AS column_type
FROM pg_catalog.pg_attribute AS a
JOIN pg_catalog.pg_class AS c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
WHERE lower(n.nspname) = {{lit .Schema}} AND lower(c.relname) = {{lit .Table}}
  AND c.relkind IN ('r', 'v', 'm', 'f', 'p') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY n.nspname, c.relname, a.attnum
