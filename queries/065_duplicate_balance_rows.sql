-- check: duplicate_balance_rows
-- assertion: accuracy
-- description: Groups with more than one row in an input at balance grain (grain: balance, and the opening of a
-- description: roll-forward), which holds one row per group, its balance: each with side, row_count and every
-- description: row's location. The balance checks sum such rows, so the doubled balance shows there too; this check
-- description: names the rows.
-- requires: group_by, balance_grain
-- columns: locations=location
-- writes: side, row_count
{{- range $i, $in := .BalanceInputs}}{{if $i}}
UNION ALL{{end}}
-- The {{$in.Table}}'s groups on more than one row, then their rows' locations.
SELECT {{cols "x" $.GroupBy}}, {{lit $in.Table}} AS side, count(*) AS row_count,
       string_agg({{loc "x" $in.Location}}, ';' ORDER BY x.__row) AS locations
FROM {{$in.Table}} AS x SEMI JOIN (SELECT {{cols "" $.GroupBy}} FROM {{$in.Table}} GROUP BY {{cols "" $.GroupBy}} HAVING count(*) > 1) AS r
     ON {{match "x" "r" $.GroupBy}}
GROUP BY {{cols "x" $.GroupBy}}
{{- end}}
