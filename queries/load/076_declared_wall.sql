-- fragment: declared_wall
-- description: The wall-clock time (a TIMESTAMP) that column .Column (DuckDB type .From), declared .Type, is read
-- description: as in the input's zone, for the DST check of declared_type_check; NULL for a value that names its
-- description: own instant. A declared TIMESTAMP WITH TIME ZONE (.Zoned): text without a zone or offset (as
-- description: declared_value reads it), a TIMESTAMP or a DATE; a declared zone-less TIMESTAMP: its value
-- description: (.TryValue), which the checks read as wall-clock time in the zone.
-- returns: TIMESTAMP
{{$col := q .Column}}{{if .Zoned}}{{if eq .From "VARCHAR"}}{{$t := printf "trim(%s)" $col}}CASE WHEN {{haszone $t}} THEN NULL ELSE TRY_CAST({{$t}} AS TIMESTAMP) END
{{- else if or (eq .From "TIMESTAMP") (hasprefix .From "TIMESTAMP_") (eq .From "DATE")}}CAST({{$col}} AS TIMESTAMP)
{{- else}}CAST(NULL AS TIMESTAMP)
{{- end}}
{{- else}}CAST({{.TryValue}} AS TIMESTAMP)
{{- end}}
