-- statement: read_parquet
-- description: Reads Parquet files of one schema with DuckDB's read_parquet,
-- description: each column cast to the type the input's files unify to (a
-- description: cast that changes no value: an integer widened, a decimal given
-- description: more digits; a file of another schema is read by another run of
-- description: this statement, so read_parquet never casts one file to another
-- description: file's types); rows in read order, with their file in __file when .Filename (an input of more than
-- description: one file). The first run creates the table, later runs append to it.
{{if .Append}}INSERT INTO {{q .Table}} SELECT{{else}}CREATE TABLE {{q .Table}} AS SELECT{{end}}
{{- range $i, $c := .Columns}}{{if $i}},{{end}} {{if $c.Cast}}CAST({{q $c.Name}} AS {{sqltype $c.Type}}) AS {{q $c.Name}}{{else}}{{q $c.Name}}{{end}}{{end}}{{if .Filename}}, __file{{end}}
FROM read_parquet({{litlist .Files}}{{if .Filename}}, filename = '__file'{{end}})
