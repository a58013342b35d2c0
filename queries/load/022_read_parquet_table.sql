-- statement: read_parquet_table
-- description: Reads Parquet files of one schema into the input's table in one pass, with the provenance every
-- description: input has: each column cast to the type the input's files unify to where it differs (as
-- description: read_parquet.sql), the partition columns (Partitions, as file_provenance.sql), __file as the evidence
-- description: names the file (Names, matched to the Paths read), __line the row's position in its file from
-- description: FirstLine, and __row its 0-based position in read order: the rows of the files before it (Offsets,
-- description: from the footers, parquet_rows.sql) plus its position in its file. The first run creates the table,
-- description: later runs append to it. With .Enum, __file is of that ENUM type (file_enum.sql). A row whose file
-- description: is not among Paths gets a NULL __row or __file (the loader reads the input the two-pass way then).
-- description: An input of one file (one path) has its provenance as constants and the row number alone, without
-- description: the join: the same values (measured on 10 M rows: 0.73 s against 0.98 s with the join). With .View
-- description: (one run of files, load.Options.View), the input's relation is a view of the same query instead:
-- description: every statement that reads it reads the files.
{{if .Append}}INSERT INTO {{q .Table}}{{else if .View}}CREATE VIEW {{q .Table}} AS{{else}}CREATE TABLE {{q .Table}} AS{{end}}
{{- if eq (len .Paths) 1}}
SELECT
{{- range $i, $c := .Columns}}{{if $i}},{{end}} {{if $c.Cast}}CAST(raw.{{q $c.Name}} AS {{sqltype $c.Type}}) AS {{q $c.Name}}{{else}}raw.{{q $c.Name}}{{end}}{{end}},
{{- range $i, $p := .Partitions}}
  (CAST({{$p.Values}} AS VARCHAR[]))[1] AS {{q $p.Name}},
{{- end}}
  {{if .Enum}}CAST({{lit (index .Names 0)}} AS {{q .Enum}}){{else}}{{lit (index .Names 0)}}{{end}} AS __file,
  CAST(raw.file_row_number + {{.FirstLine}} AS BIGINT) AS __line,
  CAST(raw.file_row_number AS BIGINT) AS __row
FROM read_parquet({{litlist .Files}}, file_row_number = true) AS raw
{{- else}}
WITH names AS (
  SELECT unnest({{litlist .Paths}}) AS path, unnest({{litlist .Names}}) AS name, unnest(CAST({{.Offsets}} AS BIGINT[])) AS first_row
{{- range $i, $p := .Partitions}}, unnest(CAST({{$p.Values}} AS VARCHAR[])) AS {{q (printf "__partition_%d" $i)}}{{end}}
)
SELECT
{{- range $i, $c := .Columns}}{{if $i}},{{end}} {{if $c.Cast}}CAST(raw.{{q $c.Name}} AS {{sqltype $c.Type}}) AS {{q $c.Name}}{{else}}raw.{{q $c.Name}}{{end}}{{end}},
{{- range $i, $p := .Partitions}}
  names.{{q (printf "__partition_%d" $i)}} AS {{q $p.Name}},
{{- end}}
  {{if .Enum}}TRY_CAST(coalesce(names.name, raw.__file) AS {{q .Enum}}){{else}}coalesce(names.name, raw.__file){{end}} AS __file,
  CAST(raw.file_row_number + {{.FirstLine}} AS BIGINT) AS __line,
  CAST(names.first_row + raw.file_row_number AS BIGINT) AS __row
FROM read_parquet({{litlist .Files}}, filename = '__file', file_row_number = true) AS raw
LEFT JOIN names ON raw.__file = names.path
{{- end}}
