-- statement: unexpected_ids
-- description: Check unexpected_ids (queries/030_unexpected_ids.sql) in Trino's dialect: the sink ids with no source
-- description: row, anti-joined as missing_ids does; sink_location is the first of the id's locations in text order.
-- returns: the id columns, sink_rows, sink_<measure> for each measure, checkpoint_ids (with a checkpoint), sink_location
SELECT {{cols "k" .ID}},
       count(*) AS sink_rows,
{{- range .Measures}}
       CAST(sum(k.{{q .}}) AS {{$.Dec .}}) AS {{name "sink_" .}},
{{- end}}
{{- if .Checkpoint}}
       {{sortedlist (cpid "k" .Checkpoint)}} AS checkpoint_ids,
{{- end}}
       min({{loc "k"}}) AS sink_location
FROM sink AS k
LEFT JOIN (SELECT {{cols "d" .ID}}, TRUE AS __present
           FROM (SELECT DISTINCT {{cols "s" .ID}} FROM source AS s WHERE NOT {{nullid "s" .ID}}) AS d) AS s ON {{$.Match "s" "k" .ID}}
WHERE NOT {{nullid "k" .ID}} AND s.__present IS NULL
GROUP BY {{cols "k" .ID}}
