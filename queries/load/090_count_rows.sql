-- statement: count_rows
-- description: The number of rows of a loaded table.
SELECT count(*) FROM {{q .Table}}
