-- statement: missing_row
-- description: Whether a table read by read_parquet_table.sql holds a row without its position (__row NULL): a file
-- description: named otherwise than the loader listed it. The loader then reads the input the two-pass way.
-- returns: one BIGINT: the rows without __row
SELECT count(*) FROM {{q .Table}} WHERE __row IS NULL
