-- statement: read_parquet
-- description: Reads Parquet files with DuckDB's read_parquet, each column
-- description: of the type the files declare; rows in read order with their
-- description: file in __file.
CREATE TABLE {{q .Table}} AS SELECT *
FROM read_parquet({{litlist .Files}}, filename = '__file')
