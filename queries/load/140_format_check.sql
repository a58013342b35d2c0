-- statement: format_check
-- description: The first row (Limit rows when set), in read order, whose text value of Column does
-- description: not match its declared format: for a date or timestamp
-- description: (Pattern set) a value DuckDB's strptime does not read with the
-- description: strftime Pattern; for a number (Regex set) a value that does
-- description: not fully match the Regex of the declared decimal and
-- description: thousands separators. With the row's file, line, value and __row.
SELECT __file, __line, {{q .Column}}, __row
FROM {{q .Table}}
WHERE {{q .Column}} IS NOT NULL AND
{{- if .Pattern}} TRY_STRPTIME({{q .Column}}, {{lit .Pattern}}) IS NULL
{{- else}} NOT regexp_full_match({{q .Column}}, {{lit .Regex}})
{{- end}}
ORDER BY __row
LIMIT {{if .Limit}}{{.Limit}}{{else}}1{{end}}
