-- statement: missing_row
-- description: How many rows of a table made by read_parquet_table.sql or file_provenance.sql lack their provenance
-- description: (__row or __file NULL): rows of a file named otherwise than the loader listed it. The loader then
-- description: makes the table again the plain way (two passes, __file as text).
-- returns: one BIGINT: the rows without __row or __file
SELECT count(*) FROM {{q .Table}} WHERE __row IS NULL OR __file IS NULL
