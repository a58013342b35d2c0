-- check: roll_forward
-- assertion: completeness, accuracy
-- description: The roll-forward of a balance control with opening: per group and measure, opening (the opening
-- description: balances) + postings (the source's sum) = expected, against closing (the sink's sum), exact decimals;
-- description: a group absent from an input has 0 there. An exception is a group where any difference (closing -
-- description: expected) is not 0; difference_pct is it as a percentage of expected, exact to 6 places (NULL when
-- description: expected is 0). status says whether the group continues, was opened (no opening row) or closed (no
-- description: closing row) in the period, or has postings only (neither). With balance_tolerance: a difference
-- description: within the measure's tolerance (of expected) is listed but not an exception, and the total is
-- description: rolled forward too (the row where total is true). It replaces sum_balance.
-- requires: records, measures, group_by, opening
-- replaces: sum_balance
-- chart: roll_forward
-- tolerance: balance
-- columns: opening_*=opening, postings_*=source, expected_*=expected, closing_*=sink, difference_*=difference,
-- columns: difference_pct_*=difference_pct, tolerance_*=tolerance, within_tolerance=within_tolerance, total=total,
-- columns: status=finding
-- writes: source_postings
{{- $total := ne (len .BalanceTolerance) 0}}
WITH rolled AS (
{{rollforward . $total}}
), unbalanced AS (
    -- The groups that do not roll forward, with each difference and
    -- expected balance as unscaled integers for the exact percentage.
    SELECT *{{range .Measures}},
           {{unscaled (name "difference_" .)}} AS {{name "__part_" .}}, {{unscaled (name "expected_" .)}} AS {{name "__whole_" .}}{{end}}
    FROM rolled
    WHERE {{range $i, $m := .Measures}}{{if $i}} OR {{end}}{{name "difference_" $m}} <> 0{{end}}
)
SELECT {{cols "r" .GroupBy}}, {{if $total}}r.total, {{end}}
{{- range $i, $m := .Measures}}r.{{name "opening_" $m}}, r.{{name "postings_" $m}}, r.{{name "expected_" $m}}, r.{{name "closing_" $m}}, r.{{name "difference_" $m}},
       {{percentof (printf "r.%s" (name "__part_" $m)) (printf "r.%s" (name "__whole_" $m))}} AS {{name "difference_pct_" $m}},
       {{if $.BalanceTolerance}}{{with $.BalanceTol $m}}{{lit .Text}}{{else}}CAST(NULL AS VARCHAR){{end}} AS {{name "tolerance_" $m}},
       {{end}}{{end}}r.status, r.source_postings
{{- if .BalanceTolerance}},
       {{range $i, $m := .Measures}}{{if $i}}
       AND {{end}}(r.{{name "difference_" $m}} = 0{{with $.BalanceTol $m}} OR coalesce({{within (printf "r.%s" (name "expected_" $m)) (printf "r.%s" (name "closing_" $m)) .}}, FALSE){{end}}){{end}} AS within_tolerance
{{- end}}
FROM unbalanced AS r
