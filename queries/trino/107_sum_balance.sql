-- statement: sum_balance
-- description: Check sum_balance (queries/070_sum_balance.sql) in Trino's dialect, without balance_tolerance: (refused
-- description: on Trino): the exact DECIMAL sums of each measure in source and sink, in total or per group, where any
-- description: differs, with each difference as an exact percentage of the source sum (difference_pct_<m>) and the
-- description: number of source rows behind the sums (source_postings).
-- returns: the group columns, then source_<m>, sink_<m>, difference_<m>, difference_pct_<m> for each measure, then
-- returns: source_postings
WITH s AS (
    SELECT {{if .GroupBy}}{{cols "" .GroupBy}}, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}CAST(coalesce(sum({{q $m}}), 0) AS {{$.Dec $m}}) AS {{q $m}}{{end}}, count(*) AS __postings
    FROM source
    {{if .GroupBy}}GROUP BY {{cols "" .GroupBy}}{{end}}
), k AS (
    SELECT {{if .GroupBy}}{{cols "" .GroupBy}}, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}CAST(coalesce(sum({{q $m}}), 0) AS {{$.Dec $m}}) AS {{q $m}}{{end}}
    FROM sink
    {{if .GroupBy}}GROUP BY {{cols "" .GroupBy}}{{end}}
), balanced AS (
    SELECT {{coalesced "s" "k" .GroupBy}}
{{- range $i, $m := .Measures}}{{if $i}},{{end}}
           CAST(coalesce(s.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "source_" $m}},
           CAST(coalesce(k.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "sink_" $m}},
           CAST(coalesce(k.{{q $m}}, 0) - coalesce(s.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "difference_" $m}}
{{- end}},
           coalesce(s.__postings, 0) AS source_postings
    FROM s FULL OUTER JOIN k ON {{$.Match "s" "k" .GroupBy}}
)
SELECT {{if .GroupBy}}{{cols "b" .GroupBy}}, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}b.{{name "source_" $m}}, b.{{name "sink_" $m}}, b.{{name "difference_" $m}},
       {{percentof (unscaled (printf "b.%s" (name "difference_" $m))) (unscaled (printf "b.%s" (name "source_" $m)))}} AS {{name "difference_pct_" $m}}{{end}},
       b.source_postings
FROM balanced AS b
WHERE {{range $i, $m := .Measures}}{{if $i}} OR {{end}}b.{{name "difference_" $m}} <> 0{{end}}
