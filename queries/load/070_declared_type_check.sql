-- statement: declared_type_check
-- description: The first row, in read order, whose value of Column does not
-- description: convert to the declared Type, or that a declared DECIMAL with
-- description: Scale fraction digits would round (Decimal is true then).
SELECT __file, __line, {{q .Column}}
FROM {{q .Table}}
WHERE ({{q .Column}} IS NOT NULL AND TRY_CAST({{q .Column}} AS {{sqltype .Type}}) IS NULL)
{{- if .Decimal}}
   OR ({{q .Column}} IS NOT NULL AND length(regexp_extract(trim(CAST({{q .Column}} AS VARCHAR)), '\.(\d*)$', 1)) > {{.Scale}})
{{- end}}
ORDER BY __row
LIMIT 1
