-- fragment: compared_value
-- description: One input's side of compared column .C (a checks.Compared) under alias .Alias, as the value it is
-- description: compared by, in Trino's dialect (queries/rules/compared_value.sql for the methods Trino runs): text as
-- description: text with empty text as NULL, a number as the exact .C.Decimal, a boolean or a date as it is.
-- returns: VARCHAR, DECIMAL(38,s), BOOLEAN or DATE
{{ $c := printf "%s.%s" .Alias (q .C.Name)}}{{$m := print .C.Method}}
{{- if eq $m "text"}}NULLIF(CAST({{$c}} AS VARCHAR), '')
{{- else if eq $m "number"}}CAST({{$c}} AS {{sqltype .C.Decimal}})
{{- else}}{{$c}}
{{- end}}
