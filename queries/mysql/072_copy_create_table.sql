-- statement: copy_create_table
-- description: Creates the InnoDB table mysql.LoadCSV fills; Columns are name
-- description: and MySQL type pairs, each type a plain type name.
CREATE TABLE {{range $i, $p := .Table}}{{if $i}}.{{end}}{{q $p}}{{end}} ({{range $i, $c := .Columns}}{{if $i}}, {{end}}{{q $c.Name}} {{sqltype $c.Type}}{{end}}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
