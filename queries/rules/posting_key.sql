-- fragment: posting_key
-- description: Column .C (a checks.PostingColumn) of one input, qualified by alias .Alias, as the value two postings
-- description: are the same by (duplicates:, check duplicate_postings): the value as the input types it (a number by
-- description: value: a DECIMAL(18,2) holds 10.0 and 10.00 as one value, and a measure is already its exact DECIMAL;
-- description: a timestamp as stored), except that text is compared as written with an empty text as NULL (CSV
-- description: cannot tell the two apart: checks.MethodText) and an interval as its months, days and micros
-- description: (rules/interval_fields.sql), never DuckDB's normalising INTERVAL equality. GROUP BY and IS NOT
-- description: DISTINCT FROM take NULL as one value: two rows with NULL in the same column are the same posting,
-- description: NULL and a value are not. Template helper postingkey.
-- returns: the column's type; VARCHAR for text; STRUCT(months BIGINT, days BIGINT, micros BIGINT) for an interval
{{ $c := printf "%s.%s" .Alias (q .C.Name)}}
{{- if .C.Interval}}{{intervalfields $c}}
{{- else if .C.Text}}NULLIF(CAST({{$c}} AS VARCHAR), '')
{{- else}}{{$c}}
{{- end}}
