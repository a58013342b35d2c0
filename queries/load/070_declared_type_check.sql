-- statement: declared_type_check
-- description: The first row (Limit rows when set), in read order, whose value of Column is not read exactly as the declared Type, by
-- description: Check: "convert", a value that does not convert (TryValue, the declared_value fragment with TRY_CAST,
-- description: is NULL); "exact", a value that converts but that the cast would change — for text (Text), a
-- description: number (Class "number": an integer type has Scale 0) not written as a plain decimal number with at
-- description: most Scale fraction digits (DuckDB's cast rounds 1.5 to the INTEGER 2, reads 1e1, 0x10 and 1_000),
-- description: a date (Class "date") not written as a plain date YYYY-MM-DD (the cast drops a time of day), a
-- description: timestamp (Class "timestamp") with non-zero fraction digits of a second beyond the Digits the type
-- description: holds (the cast drops them), a time of day (Class "time") not written as a plain HH:MM:SS with at
-- description: most Digits non-zero fraction digits (the cast drops a date, an offset and further digits); for a
-- description: typed value (RoundTrip, the column's own type), one that reads back as another value once converted
-- description: (a DOUBLE 1.5 as an INTEGER, a TIMESTAMP_NS as a TIMESTAMP);
-- description: "gap" and "repeat", a wall-clock time (the declared_wall fragment) that the DST changes of Zone skip
-- description: (ICU would move it by the change) or show twice (ICU would pick one offset): rules/wall_dst.sql; with
-- description: NamedWall, the same of a text that names its zone (2024-10-27 02:30:00 Europe/Berlin) in that zone.
{{$col := q .Column}}SELECT __file, __line, {{$col}}, __row
FROM {{q .Table}}
WHERE {{$col}} IS NOT NULL AND
{{- if eq .Check "convert"}} {{.TryValue}} IS NULL
{{- else if eq .Check "exact"}}
  {{- if .Text}} {{inexacttext $col .Class .Scale .Digits}}
  {{- else if .RoundTrip}} TRY_CAST({{.TryValue}} AS {{sqltype .RoundTrip}}) IS DISTINCT FROM {{$col}}
  {{- else}} FALSE
  {{- end}}
{{- else if .NamedWall}} {{walldstin .NamedWall .NamedZone .Check}}
{{- else}} {{walldst .Wall .Zone .Check}}
{{- end}}
ORDER BY __row
LIMIT {{if .Limit}}{{.Limit}}{{else}}1{{end}}
