-- statement: convert
-- description: Rewrites table .Table with its ids, group columns and measures in the types the checks compare:
-- description: an id typed differently in the two inputs as text (each value rendered from its own type by DuckDB,
-- description: never re-sniffed), an empty text id as NULL, a measure as its exact DECIMAL(p,s), or a column read
-- description: as another type: .Typed, an expression rendered from rules/compared_value.sql (a timestamp as an
-- description: instant, text read as the other input's BOOLEAN or DATE), or a text id or group column with
-- description: normalize: as its text normalised (.Normalize: rules/normalized_text.sql; an empty text NULL).
CREATE OR REPLACE TABLE {{q .Table}} AS SELECT * REPLACE (
{{- range $i, $c := .Columns}}{{if $i}}, {{end}}
{{- if $c.Decimal}}CAST({{q $c.Name}} AS {{$c.Decimal}})
{{- else if $c.Typed}}{{$c.Typed}}
{{- else if $c.Normalize}}{{normtext (printf "NULLIF(CAST(%s AS VARCHAR), '')" (q $c.Name)) $c.Normalize}}
{{- else}}{{if $c.EmptyAsNull}}NULLIF({{end}}{{if $c.AsText}}CAST({{q $c.Name}} AS VARCHAR){{else}}{{q $c.Name}}{{end}}{{if $c.EmptyAsNull}}, ''){{end}}
{{- end}} AS {{q $c.Name}}
{{- end}}) FROM {{q .Table}}
