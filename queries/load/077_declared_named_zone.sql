-- fragment: declared_named_zone
-- description: For a text column .Column declared TIMESTAMPTZ, a value that ends in a zone name after its time
-- description: (2024-10-27 02:30:00 Europe/Berlin, a form DuckDB's cast reads): with .Part "wall" its wall-clock
-- description: time (a TIMESTAMP; NULL for any other value), with .Part "zone" the zone it names ('UTC' for any
-- description: other value, which then has no DST change to check). For the DST check of declared_type_check.
-- returns: TIMESTAMP (wall) or VARCHAR (zone)
{{$t := printf "trim(%s)" (q .Column)}}{{$re := "^(.*\\d)\\s+([A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*)$"}}
{{- if eq .Part "wall"}}TRY_CAST(regexp_extract({{$t}}, {{lit $re}}, 1) AS TIMESTAMP)
{{- else}}CASE WHEN regexp_matches({{$t}}, {{lit $re}}) THEN regexp_extract({{$t}}, {{lit $re}}, 2) ELSE 'UTC' END
{{- end}}
