-- statement: input
-- description: The relation the checks read as source or sink (.Name), as a Trino CTE body: every column of the input
-- description: (.Columns: its name in the input, .Expr its value as the checks compare it — a measure cast to its
-- description: exact DECIMAL, empty text of an id or group column as NULL — and .As the control's name for it), then
-- description: the provenance the checks name rows by: __file (the data file, "$path", for a lakehouse table — relative
-- description: to .Base, the table's location followed by /, when it lies there, as the embedded iceberg kind names
-- description: it; the table's name otherwise) and __line (NULL: Trino does not tell a row's position).
-- returns: the input's columns, __file varchar, __line bigint
SELECT {{range .Columns}}{{.Expr}} AS {{q .As}}, {{end}}
{{- if .Base}}IF(starts_with("$path", {{lit .Base}}), substr("$path", {{len .Base | inc}}), "$path")
{{- else if .HasPath}}"$path"
{{- else}}{{lit .Name}}{{end}} AS __file, CAST(NULL AS bigint) AS __line
FROM {{.Relation}}
