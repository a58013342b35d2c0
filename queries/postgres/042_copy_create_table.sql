-- statement: copy_create_table
-- description: Creates the table CopyCSV fills; Columns are name and
-- description: PostgreSQL type pairs, each type a plain type name.
CREATE TABLE {{range $i, $p := .Table}}{{if $i}}.{{end}}{{q $p}}{{end}} ({{range $i, $c := .Columns}}{{if $i}}, {{end}}{{q $c.Name}} {{sqltype $c.Type}}{{end}})
