-- statement: parquet_types
-- description: The DuckDB types read_parquet gives the columns .Columns of the Parquet file .File, without reading
-- description: a row: the types of the columns a run leaves unread, for the evidence (columns_not_read).
-- returns: column_name VARCHAR, column_type VARCHAR, …
DESCRIBE SELECT {{range $i, $c := .Columns}}{{if $i}}, {{end}}{{q $c}}{{end}} FROM read_parquet({{lit .File}})
