-- statement: uncommitted_table
-- description: Creates the side table of a sink's uncommitted rows (rows of
-- description: files written but not committed, read only to label findings):
-- description: the id Columns with the types the sink's ids are compared as,
-- description: and the provenance of each row.
CREATE TABLE IF NOT EXISTS {{q .Table}} (
{{- range .Columns}}{{q .Name}} {{sqltype .Type}}, {{end -}}
__file VARCHAR, __line BIGINT)
