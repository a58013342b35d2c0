-- statement: read_parquet_parts
-- description: Appends a run of Parquet files of a part scan (sources.PartScan: an Iceberg table's data files to
-- description: which no delete applies) to the input's table, whose columns the kind's Arrow records made (the
-- description: types the loader checked each file's columns read as): each user column the file's own column, cast
-- description: where the loader found the one exact cast it allows (a UUID read as its canonical text), or a
-- description: constant of the part (the kind's provenance of the file: the snapshot that added it, …) read as the
-- description: column's type; __file the part's name (of the table's ENUM type .Enum), __line the row's 1-based
-- description: position in its file, __row its 0-based position in the whole input (the rows of the parts before
-- description: it, .Offsets, plus its position in its file). A path listed twice is read twice: each part is
-- description: matched by read_parquet's file_index, its place in the list, not by its path.
INSERT INTO {{q .Table}}
WITH parts AS (
  SELECT CAST(unnest(range({{len .Paths}})) AS UBIGINT) AS idx,
         unnest(CAST({{litlist .Names}} AS {{q .Enum}}[])) AS name,
         unnest(CAST({{.Offsets}} AS BIGINT[])) AS first_row
{{- range $i, $c := .Columns}}{{if $c.Constant}},
         unnest(CAST({{$c.Values}} AS {{sqltype $c.Type}}[])) AS {{q (printf "__const_%d" $i)}}{{end}}{{end}}
)
SELECT
{{- range $i, $c := .Columns}}
  {{if $c.Constant}}parts.{{q (printf "__const_%d" $i)}}{{else if $c.Cast}}CAST(raw.{{q $c.Source}} AS {{sqltype $c.Type}}){{else}}raw.{{q $c.Source}}{{end}} AS {{q $c.Name}},
{{- end}}
  parts.name AS __file,
  CAST(raw.file_row_number + 1 AS BIGINT) AS __line,
  CAST(parts.first_row + raw.file_row_number AS BIGINT) AS __row
FROM read_parquet({{litlist .Paths}}, file_row_number = true) AS raw
LEFT JOIN parts ON raw.file_index = parts.idx
