-- statement: parts_table
-- description: The parts of a part scan, one row each (idx, of type .PartType, their place in read order): __file
-- description: (of the input's ENUM type .Enum) and each constant of a part (.Constants: a name, the type of its
-- description: field as the kind's records load it, and a list literal of every part's value as text, NULL for
-- description: NULL), for the view over the raw table (parts_view.sql); with .FirstRows (every part read by
-- description: read_parquet, every row of its file), first_row, the raw rowid of each part's first row.
CREATE OR REPLACE TABLE {{q .Table}} AS
SELECT CAST(unnest(range({{len .Names}})) AS {{sqltype .PartType}}) AS idx,
       unnest(CAST({{litlist .Names}} AS {{q .Enum}}[])) AS __file
{{- if .FirstRows}},
       unnest(CAST({{.FirstRows}} AS BIGINT[])) AS first_row
{{- end}}
{{- range .Constants}},
       unnest(CAST({{.Values}} AS {{sqltype .Type}}[])) AS {{q .Name}}
{{- end}}
