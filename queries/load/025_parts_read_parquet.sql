-- statement: parts_read_parquet
-- description: Appends a run of Parquet files of a part scan to its raw table (parts_raw.sql): each column the
-- description: file's own (.Columns: the raw column's name, the file's column and whether it takes the one exact cast
-- description: the loader allows, to .Type), __part the file's place in the run (read_parquet's file_index) plus
-- description: .First, with .Lines __line the row's 1-based position in its file. A path listed twice is read twice,
-- description: each copy its own part. Rows in read order: the raw table's rowid is each row's __row.
INSERT INTO {{q .Raw}}
SELECT
{{- range .Columns}}
  {{if .Cast}}CAST({{q .Source}} AS {{sqltype .Type}}){{else}}{{q .Source}}{{end}} AS {{q .Name}},
{{- end}}
  CAST(file_index + {{.First}} AS {{sqltype .PartType}}) AS __part
{{- if .Lines}},
  CAST(file_row_number + 1 AS BIGINT) AS __line{{end}}
FROM read_parquet({{litlist .Paths}}{{if .Lines}}, file_row_number = true{{end}})
