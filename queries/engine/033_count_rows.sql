-- statement: count_rows
-- description: The number of rows of one table.
-- returns: one BIGINT
SELECT count(*) FROM {{q .}}
