-- statement: file_provenance
-- description: Gives a table read by a DuckDB file reader the provenance
-- description: columns every input has: __file as the evidence names the file
-- description: (Names, matched to the Paths read; a path not among them stays
-- description: as read), __line counting from FirstLine within each file, and
-- description: __row the 0-based position in read order (the reader's
-- description: insertion order, rowid). Each partition column (Partitions:
-- description: a name and the list of every file's value, in the order of
-- description: Paths) follows the files' own columns, as text. Files are
-- description: matched through two small joins, so the cost does not grow with
-- description: the number of files. With .Enum, __file is of that ENUM type
-- description: (file_enum.sql); a file name not among Names is NULL then, and
-- description: the loader makes the table again without it. .RawFile says Raw has a __file column (an input of
-- description: one file is read without one). An input of one file (one path) has its provenance as
-- description: constants and the row number alone, without the joins: the same values, as every row of Raw is of
-- description: that file (measured on a 10 M-row CSV file: 1.1 s against 1.5 s with the joins, 1.75 s and more
-- description: once the other input's table holds the memory). With .View (a CSV or Parquet input of one file,
-- description: without partitions: load.overRaw) the table is a
-- description: view of that query over Raw, which is kept: the same rows and values without a second copy of the
-- description: rows (measured on two 10 M-row CSV files: 1.2 s and 1.8 s a copy); a step that converts a column
-- description: in place converts it in Raw and makes the view again (duck.DB.ViewOver).
{{if .View}}CREATE OR REPLACE VIEW {{q .Table}} AS{{else}}CREATE TABLE {{q .Table}} AS{{end}}
{{- if eq (len .Paths) 1}}
SELECT raw.*{{if .RawFile}} EXCLUDE (__file){{end}},
{{- range $i, $p := .Partitions}}
  (CAST({{$p.Values}} AS VARCHAR[]))[1] AS {{q $p.Name}},
{{- end}}
  {{if .Enum}}CAST({{lit (index .Names 0)}} AS {{q .Enum}}){{else}}{{lit (index .Names 0)}}{{end}} AS __file,
  raw.rowid + {{.FirstLine}} AS __line,
  raw.rowid AS __row
FROM {{q .Raw}} AS raw
{{- else}}
WITH firsts AS (
  SELECT __file, min(rowid) AS first_row FROM {{q .Raw}} GROUP BY __file
), names AS (
  SELECT unnest({{litlist .Paths}}) AS path, unnest({{litlist .Names}}) AS name
{{- range $i, $p := .Partitions}}, unnest(CAST({{$p.Values}} AS VARCHAR[])) AS {{q (printf "__partition_%d" $i)}}{{end}}
)
SELECT raw.* EXCLUDE (__file),
{{- range $i, $p := .Partitions}}
  names.{{q (printf "__partition_%d" $i)}} AS {{q $p.Name}},
{{- end}}
  {{if .Enum}}TRY_CAST(coalesce(names.name, raw.__file) AS {{q .Enum}}){{else}}coalesce(names.name, raw.__file){{end}} AS __file,
  raw.rowid - firsts.first_row + {{.FirstLine}} AS __line,
  raw.rowid AS __row
FROM {{q .Raw}} AS raw
JOIN firsts ON raw.__file IS NOT DISTINCT FROM firsts.__file
LEFT JOIN names ON raw.__file = names.path
{{- end}}
