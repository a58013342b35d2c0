-- check: missing_ids
-- assertion: completeness
-- description: Source records whose id has no row in the sink: entries that were never posted.
-- requires: id
-- reads: id_counts
-- notes: partial_null_ids
-- columns: source_rows=source, source_location=location, source_*=source, uncommitted_file=location
SELECT {{cols "s" .ID}},
       count(*) AS source_rows,
{{- range .Measures}}
       CAST(sum(s.{{q .}}) AS {{$.Dec .}}) AS {{name "source_" .}},
{{- end}}
       arg_min({{loc "s" $.SourceLocation}}, s.__row) AS source_location
{{- if .Uncommitted}},
       (SELECT nullif(array_to_string(list(DISTINCT {{loc "u"}} ORDER BY {{loc "u"}}), ';'), '')
        FROM sink_uncommitted AS u WHERE {{match "s" "u" .ID}}) AS uncommitted_file
{{- end}}
{{- if .IDCounts}}
-- The ids with no sink row, from id_counts (_id_counts.sql): one pass over both inputs for all the id checks.
FROM source AS s SEMI JOIN (SELECT {{cols "x" .ID}} FROM id_counts AS x WHERE x.__sink_rows = 0 AND NOT {{nullid "x" .ID}}) AS x ON {{match "s" "x" .ID}}
{{- else}}
FROM source AS s ANTI JOIN sink AS k ON {{match "s" "k" .ID}}
{{- end}}
WHERE NOT {{nullid "s" .ID}}
GROUP BY {{cols "s" .ID}}
