-- statement: sum_balance
-- description: Check sum_balance (queries/070_sum_balance.sql) in Trino's dialect, without balance_tolerance: (refused
-- description: on Trino): the exact DECIMAL sums of each measure in source and sink, in total or per group, where any
-- description: differs; difference_pct_<m> the difference as a percentage of the source sum, exact to 6 places as
-- description: DECIMAL(38,6) (NULL when that sum is 0): 100 × difference / source as the unscaled integers of the two
-- description: (their text without the point, DECIMAL(38,0)), divided as DECIMAL(38,0), which Trino rounds half away
-- description: from zero as rules/percent_of.sql does, and scaled by 10^-6; an overflow is Trino's error, never a
-- description: rounded figure; source_postings the number of source rows behind the source sums.
-- returns: the group columns, then source_<m>, sink_<m>, difference_<m>, difference_pct_<m> for each measure, source_postings
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
), unbalanced AS (
    -- The groups out of balance, with each difference and source sum as unscaled integers for the exact percentage.
    SELECT *{{range .Measures}},
           CAST(replace(CAST({{name "difference_" .}} AS VARCHAR), '.', '') AS DECIMAL(38,0)) AS {{name "__part_" .}},
           CAST(replace(CAST({{name "source_" .}} AS VARCHAR), '.', '') AS DECIMAL(38,0)) AS {{name "__whole_" .}}{{end}}
    FROM balanced
    WHERE {{range $i, $m := .Measures}}{{if $i}} OR {{end}}{{name "difference_" $m}} <> 0{{end}}
)
SELECT {{if .GroupBy}}{{cols "b" .GroupBy}}, {{end}}
{{- range $i, $m := .Measures}}{{if $i}}, {{end}}b.{{name "source_" $m}}, b.{{name "sink_" $m}}, b.{{name "difference_" $m}},
       CASE WHEN b.{{name "__whole_" $m}} = 0 THEN CAST(NULL AS DECIMAL(38,6))
            ELSE CAST(b.{{name "__part_" $m}} * 100000000 / b.{{name "__whole_" $m}} AS DECIMAL(38,0)) * CAST(0.000001 AS DECIMAL(7,6)) END AS {{name "difference_pct_" $m}}
{{- end}},
       b.source_postings
FROM unbalanced AS b
