-- check: sum_balance
-- assertion: completeness, accuracy
-- description: Exact decimal sums of each measure in source and sink, in total or per group when group_by is given;
-- description: an exception is a total or group where any sum differs (difference = sink - source).
-- requires: records, measures
-- chart: balance
-- columns: source_*=source, sink_*=sink, difference_*=difference
WITH s AS (
    SELECT {{if .GroupBy}}{{cols "" .GroupBy}}, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}CAST(coalesce(sum({{q $m}}), 0) AS {{$.Dec $m}}) AS {{q $m}}{{end}}
    FROM source
    {{if .GroupBy}}GROUP BY {{cols "" .GroupBy}}{{end}}
), k AS (
    SELECT {{if .GroupBy}}{{cols "" .GroupBy}}, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}CAST(coalesce(sum({{q $m}}), 0) AS {{$.Dec $m}}) AS {{q $m}}{{end}}
    FROM sink
    {{if .GroupBy}}GROUP BY {{cols "" .GroupBy}}{{end}}
)
SELECT {{coalesced "s" "k" .GroupBy}}
{{- range $i, $m := .Measures}}{{if $i}},{{end}}
       CAST(coalesce(s.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "source_" $m}},
       CAST(coalesce(k.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "sink_" $m}},
       CAST(coalesce(k.{{q $m}}, 0) - coalesce(s.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "difference_" $m}}
{{- end}}
FROM s FULL OUTER JOIN k ON {{match "s" "k" .GroupBy}}
WHERE {{range $i, $m := .Measures}}{{if $i}} OR {{end}}coalesce(s.{{q $m}}, 0) <> coalesce(k.{{q $m}}, 0){{end}}
