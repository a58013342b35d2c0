-- statement: parquet_rows
-- description: The number of rows of each Parquet file .Files, from its footer (no row is read), with the file's
-- description: name as read_parquet's filename column gives it.
-- returns: file_name VARCHAR, num_rows BIGINT
SELECT file_name, CAST(num_rows AS BIGINT) FROM parquet_file_metadata({{litlist .Files}})
