-- statement: sum_overflow
-- description: The largest absolute sum of measure .Measure in table .Table, per group of .GroupBy when given, in
-- description: its arithmetic type .Type: run only after a check or the totals failed with an overflow, to tell
-- description: whether this sum is the one beyond DECIMAL(38,s) (then it fails with the same overflow).
-- returns: one row: max_abs_sum (.Type)
SELECT max(abs(v)) FROM (
    SELECT CAST(coalesce(sum({{q .Measure}}), 0) AS {{.Type}}) AS v FROM {{q .Table}}{{if .GroupBy}} GROUP BY {{cols "" .GroupBy}}{{end}}
) AS sums
