-- statement: missing_ids
-- description: Check missing_ids (queries/020_missing_ids.sql) in Trino's dialect: the source ids with no sink row.
-- description: The anti-join is a left join on the sink's distinct ids (but a NULL or empty one, which matches no
-- description: id the check reads), matched NULL-safely by equality ($.Match: an IS NOT DISTINCT FROM join would be
-- description: a cross join in Trino); source_location is the first of the id's locations in text order (Trino has
-- description: no input order).
-- returns: the id columns, source_rows, source_<measure> for each measure, source_location
SELECT {{cols "s" .ID}},
       count(*) AS source_rows,
{{- range .Measures}}
       CAST(sum(s.{{q .}}) AS {{$.Dec .}}) AS {{name "source_" .}},
{{- end}}
       min({{loc "s"}}) AS source_location
FROM source AS s
LEFT JOIN (SELECT {{cols "d" .ID}}, TRUE AS __present
           FROM (SELECT DISTINCT {{cols "k" .ID}} FROM sink AS k WHERE NOT {{nullid "k" .ID}}) AS d) AS k ON {{$.Match "s" "k" .ID}}
WHERE NOT {{nullid "s" .ID}} AND k.__present IS NULL
GROUP BY {{cols "s" .ID}}
