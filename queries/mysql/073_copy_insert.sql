-- statement: copy_insert
-- description: Inserts Rows rows of the CSV into the table mysql.LoadCSV
-- description: created, every value a placeholder the driver fills in
-- description: (the server parses each with its column's type).
INSERT INTO {{range $i, $p := .Table}}{{if $i}}.{{end}}{{q $p}}{{end}} ({{range $i, $c := .Columns}}{{if $i}}, {{end}}{{q $c.Name}}{{end}}) VALUES {{range $r := .Rows}}{{if $r}}, {{end}}({{range $i, $c := $.Columns}}{{if $i}}, {{end}}?{{end}}){{end}}
