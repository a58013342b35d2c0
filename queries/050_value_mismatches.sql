-- check: value_mismatches
-- assertion: accuracy
-- description: Ids present in both inputs whose measures differ (exact decimal comparison), one row per differing
-- description: source/sink row pair.
-- requires: id, measures
-- notes: partial_null_ids
-- columns: source_location=location, sink_location=location, source_*=source, sink_*=sink, difference_*=difference
SELECT {{cols "s" .ID}},
{{- range .Measures}}
       s.{{q .}} AS {{name "source_" .}},
       k.{{q .}} AS {{name "sink_" .}},
       CAST(k.{{q .}} - s.{{q .}} AS {{$.Dec .}}) AS {{name "difference_" .}},
{{- end}}
       {{loc "s" $.SourceLocation}} AS source_location,
       {{loc "k" $.SinkLocation}} AS sink_location
FROM source AS s
JOIN sink AS k ON {{match "s" "k" .ID}}
WHERE NOT {{nullid "s" .ID}}
  AND {{differ "s" "k" .Measures}}
