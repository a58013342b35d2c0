-- fragment: posting_key
-- description: Column .C (a checks.PostingColumn) of one input, qualified by alias .Alias, as the value two postings
-- description: are the same by in Trino's dialect (check duplicate_postings; queries/rules/posting_key.sql): the value
-- description: as the input types it (a number by value; a measure is already its exact DECIMAL), except text, which
-- description: is compared as written with an empty text as NULL. Prepare lets through no interval, floating-point or
-- description: other type. Template helper postingkey.
-- returns: the column's type; varchar for text
{{ $c := printf "%s.%s" .Alias (q .C.Name)}}
{{- if .C.Text}}NULLIF({{$c}}, '')
{{- else}}{{$c}}
{{- end}}
