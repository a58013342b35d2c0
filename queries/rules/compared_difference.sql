-- fragment: compared_difference
-- description: The difference sink − source of a compared column .C, as text: for numbers the exact decimal
-- description: (.C.Decimal), for timestamps the interval between the instants (.SinkInstant − .SourceInstant), for
-- description: dates the interval in days; NULL for any other type or when either value is NULL. Template helper
-- description: cmpdifference.
-- returns: VARCHAR
{{ $m := print .C.Method}}
{{- if eq $m "number"}}CAST(CAST({{.Sink}} - {{.Source}} AS {{sqltype .C.Decimal}}) AS VARCHAR)
{{- else if eq $m "timestamp"}}CAST({{.SinkInstant}} - {{.SourceInstant}} AS VARCHAR)
{{- else if eq $m "date"}}CAST(to_days(CAST({{.Sink}} - {{.Source}} AS INTEGER)) AS VARCHAR)
{{- else}}CAST(NULL AS VARCHAR)
{{- end}}
