-- statement: rows
-- description: How many rows table .Table (source or sink) holds.
-- returns: one BIGINT
SELECT count(*) FROM {{q .Table}}
