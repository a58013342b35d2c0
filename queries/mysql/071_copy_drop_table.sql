-- statement: copy_drop_table
-- description: Drops an earlier table of the name mysql.LoadCSV fills.
DROP TABLE IF EXISTS {{range $i, $p := .Table}}{{if $i}}.{{end}}{{q $p}}{{end}}
