-- check: broken
-- assertion: accuracy
-- description: A check whose query parses as a template but fails in DuckDB, after the evidence folder was begun.
-- requires: id
SELECT * FROM no_such_table
