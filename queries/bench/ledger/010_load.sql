-- statement: load
-- description: The postings (.Source) and the balances (.Sink) as tables, read with read_parquet.
CREATE TABLE source AS SELECT * FROM read_parquet({{lit .Source}});
CREATE TABLE sink AS SELECT * FROM read_parquet({{lit .Sink}})
