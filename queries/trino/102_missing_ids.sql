-- statement: missing_ids
-- description: Check missing_ids (queries/020_missing_ids.sql) in Trino's dialect: the source ids with no sink row.
-- description: The anti-join is a left join on the sink's distinct ids, matched NULL-safely by equality ($.Match: an
-- description: IS NOT DISTINCT FROM join would be a cross join in Trino); source_location is the first of the id's
-- description: locations in text order (Trino has no input order).
-- returns: the id columns, source_rows, source_<measure> for each measure, source_location
SELECT {{cols "s" .ID}},
       count(*) AS source_rows,
{{- range .Measures}}
       CAST(sum(s.{{q .}}) AS {{$.Dec .}}) AS {{name "source_" .}},
{{- end}}
       min({{loc "s"}}) AS source_location
FROM source AS s
LEFT JOIN (SELECT DISTINCT {{cols "k" .ID}}, TRUE AS __present FROM sink AS k) AS k ON {{$.Match "s" "k" .ID}}
WHERE NOT {{nullid "s" .ID}} AND k.__present IS NULL
GROUP BY {{cols "s" .ID}}
