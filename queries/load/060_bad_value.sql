-- statement: bad_value
-- description: The first row (Limit rows when set), in read order, where Cond holds — a boolean
-- description: expression over the table's columns, rendered by the caller
-- description: from its own SQL file — with its file, line, the value of
-- description: Column and its __row.
SELECT __file, __line, {{q .Column}}, __row
FROM {{q .Table}}
WHERE {{.Cond}}
ORDER BY __row
LIMIT {{if .Limit}}{{.Limit}}{{else}}1{{end}}
