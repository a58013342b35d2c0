-- statement: bad_value
-- description: The first row, in read order, where Cond holds — a boolean
-- description: expression over the table's columns, rendered by the caller
-- description: from its own SQL file — with its file, line and the value of
-- description: Column.
SELECT __file, __line, {{q .Column}}
FROM {{q .Table}}
WHERE {{.Cond}}
ORDER BY __row
LIMIT 1
