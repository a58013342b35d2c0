-- statement: as_csv
-- description: The same records as CSV: the Parquet file .From copied row for row to .Path with a header
-- description: (amounts at their scale, such as -1234.50).
COPY (SELECT * FROM read_parquet({{lit .From}})) TO {{lit .Path}} (FORMAT csv, HEADER true)
