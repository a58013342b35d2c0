-- statement: parquet_columns
-- description: Every column of the Parquet file .File with the DuckDB type read_parquet gives it, without reading a
-- description: row: whether the file's columns read as the types a part scan's records hold (sources.PartScan).
-- returns: column_name VARCHAR, column_type VARCHAR, …
DESCRIBE SELECT * FROM read_parquet({{lit .File}})
