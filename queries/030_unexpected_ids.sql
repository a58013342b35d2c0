-- check: unexpected_ids
-- assertion: accuracy
-- description: Sink rows whose id is not in the source: postings with no source record behind them.
-- requires: id
-- reads: id_counts
-- notes: partial_null_ids
-- columns: sink_rows=sink, checkpoint_ids=checkpoints, sink_location=location, sink_*=sink
SELECT {{cols "k" .ID}},
       count(*) AS sink_rows,
{{- range .Measures}}
       CAST(sum(k.{{q .}}) AS {{$.Dec .}}) AS {{name "sink_" .}},
{{- end}}
{{- if .Checkpoint}}
       {{sortedlist (cpid "k" .Checkpoint)}} AS checkpoint_ids,
{{- end}}
       arg_min({{loc "k" $.SinkLocation}}, k.__row) AS sink_location
{{- if .IDCounts}}
-- The ids with no source row, from id_counts (_id_counts.sql).
FROM sink AS k SEMI JOIN (SELECT {{cols "x" .ID}} FROM id_counts AS x WHERE x.__source_rows = 0 AND NOT {{nullid "x" .ID}}) AS x ON {{match "k" "x" .ID}}
{{- else}}
FROM sink AS k ANTI JOIN source AS s ON {{match "s" "k" .ID}}
{{- end}}
WHERE NOT {{nullid "k" .ID}}
GROUP BY {{cols "k" .ID}}
