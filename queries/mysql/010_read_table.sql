-- statement: read_table
-- description: Reads every row of a MySQL or MariaDB table, Table being its
-- description: name parts (database, name), each quoted as an identifier with
-- description: backticks (a backtick doubled) so no name injects SQL. With
-- description: Describe, the same statement returns no row, only the result's
-- description: columns (LIMIT 0), so types are checked before a row is read.
SELECT * FROM {{range $i, $p := .Table}}{{if $i}}.{{end}}{{q $p}}{{end}}{{if .Describe}} LIMIT 0{{end}}
