-- check: sum_balance
-- assertion: completeness, accuracy
-- description: Exact decimal sums of each measure in source and sink, in total or per group when group_by is given;
-- description: an exception is a total or group where any sum differs (difference = sink - source; a group on one
-- description: side only has the other side's sum 0). difference_pct is the difference as a percentage of the
-- description: source sum, exact to 6 places (NULL when that sum is 0), and source_postings the number of source
-- description: rows behind the source sums. With balance_tolerance: a difference within the measure's tolerance is
-- description: listed but not an exception (within_tolerance), and with group_by the total is balanced too (the row
-- description: where total is true).
-- requires: records, measures
-- chart: balance
-- tolerance: balance
-- columns: source_*=source, sink_*=sink, difference_*=difference, difference_pct_*=difference_pct, tolerance_*=tolerance,
-- columns: within_tolerance=within_tolerance, total=total
-- writes: source_postings
{{- $total := and .GroupBy .BalanceTolerance}}
WITH s AS (
    SELECT {{if .GroupBy}}{{cols "" .GroupBy}}, {{end}}{{if $total}}grouping({{cols "" .GroupBy}}) > 0 AS __total, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}CAST(coalesce(sum({{q $m}}), 0) AS {{$.Dec $m}}) AS {{q $m}}{{end}}, count(*) AS __postings
    FROM source
    {{if $total}}GROUP BY GROUPING SETS (({{cols "" .GroupBy}}), ()){{else if .GroupBy}}GROUP BY {{cols "" .GroupBy}}{{end}}
), k AS (
    SELECT {{if .GroupBy}}{{cols "" .GroupBy}}, {{end}}{{if $total}}grouping({{cols "" .GroupBy}}) > 0 AS __total, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}CAST(coalesce(sum({{q $m}}), 0) AS {{$.Dec $m}}) AS {{q $m}}{{end}}
    FROM sink
    {{if $total}}GROUP BY GROUPING SETS (({{cols "" .GroupBy}}), ()){{else if .GroupBy}}GROUP BY {{cols "" .GroupBy}}{{end}}
), balanced AS (
    SELECT {{coalesced "s" "k" .GroupBy}}{{if $total}}coalesce(s.__total, k.__total) AS total,{{end}}
{{- range $i, $m := .Measures}}{{if $i}},{{end}}
           CAST(coalesce(s.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "source_" $m}},
           CAST(coalesce(k.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "sink_" $m}},
           CAST(coalesce(k.{{q $m}}, 0) - coalesce(s.{{q $m}}, 0) AS {{$.Dec $m}}) AS {{name "difference_" $m}}
{{- end}},
           coalesce(s.__postings, 0) AS source_postings
    FROM s FULL OUTER JOIN k ON {{match "s" "k" .GroupBy}}{{if $total}} AND s.__total = k.__total{{end}}
), unbalanced AS (
    -- The groups out of balance, with each difference and source sum as
    -- unscaled integers for the exact percentage.
    SELECT *{{range .Measures}},
           {{unscaled (name "difference_" .)}} AS {{name "__part_" .}}, {{unscaled (name "source_" .)}} AS {{name "__whole_" .}}{{end}}
    FROM balanced
    WHERE {{range $i, $m := .Measures}}{{if $i}} OR {{end}}{{name "difference_" $m}} <> 0{{end}}
)
SELECT {{if .GroupBy}}{{cols "b" .GroupBy}}, {{end}}{{if $total}}b.total, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}b.{{name "source_" $m}}, b.{{name "sink_" $m}}, b.{{name "difference_" $m}},
       {{percentof (printf "b.%s" (name "__part_" $m)) (printf "b.%s" (name "__whole_" $m))}} AS {{name "difference_pct_" $m}}
{{- if $.BalanceTolerance}}, {{with $.BalanceTol $m}}{{lit .Text}}{{else}}CAST(NULL AS VARCHAR){{end}} AS {{name "tolerance_" $m}}{{end}}{{end}},
       b.source_postings
{{- if .BalanceTolerance}},
       {{range $i, $m := .Measures}}{{if $i}}
       AND {{end}}(b.{{name "difference_" $m}} = 0{{with $.BalanceTol $m}} OR coalesce({{within (printf "b.%s" (name "source_" $m)) (printf "b.%s" (name "sink_" $m)) .}}, FALSE){{end}}){{end}} AS within_tolerance
{{- end}}
FROM unbalanced AS b
