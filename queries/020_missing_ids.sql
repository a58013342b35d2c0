-- check: missing_ids
-- assertion: completeness
-- description: Source records whose id has no row in the sink: entries that were never posted.
-- requires: id
-- notes: partial_null_ids
-- columns: source_rows=source, source_location=location, source_*=source
SELECT {{cols "s" .ID}},
       count(*) AS source_rows,
{{- range .Measures}}
       CAST(sum(s.{{q .}}) AS {{$.Dec .}}) AS {{name "source_" .}},
{{- end}}
       arg_min({{loc "s" $.SourceLocation}}, s.__row) AS source_location
FROM source AS s
WHERE NOT {{nullid "s" .ID}}
  AND NOT EXISTS (SELECT 1 FROM sink AS k WHERE {{match "s" "k" .ID}})
GROUP BY {{cols "s" .ID}}
