-- fragment: compared_difference
-- description: The difference sink − source of compared column .C as text, in Trino's dialect, as DuckDB writes it
-- description: (queries/rules/compared_difference.sql): for numbers the exact decimal (.C.Decimal); for dates the
-- description: days between them as DuckDB writes such an interval ("1 day", "-3 days"); NULL for any other type or
-- description: when either value is NULL.
-- returns: VARCHAR
{{ $m := print .C.Method}}
{{- if eq $m "number"}}CAST(CAST({{.Sink}} - {{.Source}} AS {{sqltype .C.Decimal}}) AS VARCHAR)
{{- else if eq $m "date"}}CAST(date_diff('day', {{.Source}}, {{.Sink}}) AS VARCHAR) || CASE WHEN abs(date_diff('day', {{.Source}}, {{.Sink}})) = 1 THEN ' day' ELSE ' days' END
{{- else}}CAST(NULL AS VARCHAR)
{{- end}}
