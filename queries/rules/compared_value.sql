-- fragment: compared_value
-- description: One input's side (.Op) of compared column .C (a checks.Compared), qualified by alias .Alias (none
-- description: when ""), as the value it is compared by (checks.Comparison): text as text, empty text as NULL,
-- description: with .Normalized the column's normalize: applied (rules/normalized_text.sql) unless .C.Keyed (an id or
-- description: group column normalised in place by checks.Prepare: its stored value is the normalised one); a number
-- description: as the exact .C.Decimal; binary floating point, and a number or text compared with it, as .C.Float (FLOAT or DOUBLE: the nearest value); text read as .Op.Cast (BOOLEAN,
-- description: DATE, TIME, UUID, INTERVAL, a DECIMAL by rules/text_decimal.sql); a timestamp as an instant — TIMESTAMP WITH TIME ZONE as it is, a
-- description: zone-less value as wall-clock time in .Op.Zone, text naming a zone or offset as that instant and other
-- description: text as wall-clock time in .Op.Zone — or, unless .Instant, two zone-less timestamps of one type and
-- description: zone as their wall-clock values; an interval (and text read as .Op.Cast INTERVAL) as its months,
-- description: days and micros (rules/interval_fields.sql), never DuckDB's normalising INTERVAL equality. .Cast is CAST, or TRY_CAST for NULL where a value does not read.
-- description: Template helpers cmpvalue and cmpraw.
-- returns: VARCHAR, DECIMAL(38,s), DOUBLE, BOOLEAN, DATE, TIMESTAMP, TIMESTAMPTZ, STRUCT(months, days, micros) or its type
{{ $c := q .C.Name}}{{if .Alias}}{{$c = printf "%s.%s" .Alias $c}}{{end}}
{{- $m := print .C.Method}}
{{- if eq $m "text"}}{{$v := printf "NULLIF(CAST(%s AS VARCHAR), '')" $c}}
  {{- if and .Normalized (not .C.Keyed)}}{{normtext $v .C.Normalize}}{{else}}{{$v}}{{end}}
{{- else if eq $m "number"}}{{.Cast}}({{$c}} AS {{sqltype .C.Decimal}})
{{- else if eq $m "float"}}{{.Cast}}({{if eq .Op.Kind "text"}}NULLIF(trim(CAST({{$c}} AS VARCHAR)), ''){{else}}{{$c}}{{end}} AS {{sqltype .C.Float}})
{{- else if eq $m "timestamp"}}
  {{- if not .Instant}}{{$c}}
  {{- else if eq .Op.Kind "zoned"}}{{$c}}
  {{- else if eq .Op.Kind "zoneless"}}timezone({{lit .Op.Zone}}, CAST({{$c}} AS TIMESTAMP))
  {{- else}}{{$t := printf "NULLIF(trim(CAST(%s AS VARCHAR)), '')" $c}}CASE WHEN {{haszone $t}} THEN {{.Cast}}({{$t}} AS TIMESTAMP WITH TIME ZONE) ELSE timezone({{lit .Op.Zone}}, {{.Cast}}({{$t}} AS TIMESTAMP)) END
  {{- end}}
{{- else if eq $m "interval"}}{{intervalfields (or (and .Op.Cast (printf "%s(NULLIF(trim(CAST(%s AS VARCHAR)), '') AS INTERVAL)" .Cast $c)) $c)}}
{{- else if .Op.Cast}}{{textdecimal (printf "NULLIF(trim(CAST(%s AS VARCHAR)), '')" $c) (sqltype .Op.Cast) .Cast}}
{{- else}}{{$c}}
{{- end}}
