-- fragment: declared_value
-- description: Column .Column (DuckDB type .From) as its declared type .Type, with .Cast (CAST, or TRY_CAST in
-- description: the check, where NULL marks a value that does not convert). With .Zone (set for a declared
-- description: TIMESTAMP WITH TIME ZONE: the input's time_zone:, else the spec's, else UTC), text naming
-- description: a zone or offset (rules/has_zone.sql) or a zone name (10:00 Asia/Shanghai) is that instant, text
-- description: without one is wall-clock time in .Zone, and a zone-less TIMESTAMP is wall-clock time in .Zone.
-- description: With .Zoneless (a declared zone-less TIMESTAMP), text naming a zone or offset gives NULL, so the
-- description: check refuses it: DuckDB's cast would drop the offset (10:00+08 becoming 10:00). Any other type
-- description: converts as DuckDB casts it.
-- returns: the declared type
{{$col := q .Column}}{{if .Zone}}{{if eq .From "VARCHAR"}}{{$t := printf "trim(%s)" $col}}CASE WHEN {{haszone $t}} OR TRY_CAST({{$t}} AS TIMESTAMP) IS NULL THEN {{.Cast}}({{$t}} AS TIMESTAMPTZ)
  ELSE timezone({{lit .Zone}}, {{.Cast}}({{$t}} AS TIMESTAMP)) END
{{- else if or (eq .From "TIMESTAMP") (hasprefix .From "TIMESTAMP_") (eq .From "DATE")}}timezone({{lit .Zone}}, CAST({{$col}} AS TIMESTAMP))
{{- else}}{{.Cast}}({{$col}} AS {{sqltype .Type}})
{{- end}}
{{- else if and .Zoneless (eq .From "VARCHAR")}}{{$t := printf "trim(%s)" $col}}CASE WHEN {{haszone $t}} THEN NULL ELSE {{.Cast}}({{$t}} AS {{sqltype .Type}}) END
{{- else}}{{.Cast}}({{$col}} AS {{sqltype .Type}})
{{- end}}
