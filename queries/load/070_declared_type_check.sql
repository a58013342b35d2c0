-- statement: declared_type_check
-- description: The first row, in read order, whose value of Column does not
-- description: convert to the declared Type (TryValue, the declared_value
-- description: fragment with TRY_CAST, is NULL), or that a declared DECIMAL
-- description: with Scale fraction digits would round (Decimal is true then).
SELECT __file, __line, {{q .Column}}
FROM {{q .Table}}
WHERE ({{q .Column}} IS NOT NULL AND {{.TryValue}} IS NULL)
{{- if .Decimal}}
   OR ({{q .Column}} IS NOT NULL AND length(regexp_extract(trim(CAST({{q .Column}} AS VARCHAR)), '\.(\d*)$', 1)) > {{.Scale}})
{{- end}}
ORDER BY __row
LIMIT 1
