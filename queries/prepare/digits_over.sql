-- fragment: digits_over
-- description: The condition that a value of number column .Col (text as written, or a DECIMAL or integer rendered
-- description: by DuckDB) has more than .N integer digits (.Int: without leading zeros) or more than .N fraction
-- description: digits (without trailing zeros), to name the first value a too-wide common DECIMAL comes from.
-- returns: BOOLEAN
{{if .Int -}}
length(ltrim(regexp_extract(CAST({{q .Col}} AS VARCHAR), '^\s*[+-]?(\d*)', 1), '0')) > {{.N}}
{{- else -}}
length(rtrim(regexp_extract(CAST({{q .Col}} AS VARCHAR), '\.(\d*)\s*$', 1), '0')) > {{.N}}
{{- end}}
