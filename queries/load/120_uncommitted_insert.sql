-- statement: uncommitted_insert
-- description: Appends the rows of one uncommitted file (table From, every
-- description: id value already checked to convert) to the side table: each id
-- description: column cast to the type the sink's ids are compared as (text
-- description: rendered from the value's own type, an empty text as NULL, as
-- description: the sink's ids are), with the row's file and line.
INSERT INTO {{q .Table}}
SELECT {{range .Columns}}{{if eq .Type "VARCHAR"}}nullif(CAST({{q .Name}} AS VARCHAR), ''){{else}}CAST({{q .Name}} AS {{sqltype .Type}}){{end}}, {{end -}}
__file, __line FROM {{q .From}}
