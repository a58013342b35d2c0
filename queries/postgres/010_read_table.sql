-- statement: read_table
-- description: Reads every row of a PostgreSQL table, Table being its name
-- description: parts (schema, name), each quoted as an identifier so no name
-- description: injects SQL. Run in the read's REPEATABLE READ, READ ONLY
-- description: transaction, in binary format.
SELECT * FROM {{range $i, $p := .Table}}{{if $i}}.{{end}}{{q $p}}{{end}}
