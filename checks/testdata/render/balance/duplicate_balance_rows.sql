-- check: duplicate_balance_rows
-- assertion: accuracy
-- description: Groups with more than one row in an input at balance grain (grain: balance, and the opening of a
-- description: roll-forward), which holds one row per group, its balance: each with side, row_count and every
-- description: row's location. The balance checks sum such rows, so the doubled balance shows there too; this check
-- description: names the rows.
-- requires: group_by, balance_grain
-- columns: locations=location
-- writes: side, row_count
-- The sink's groups on more than one row, then their rows' locations.
SELECT x."aid", 'sink' AS side, count(*) AS row_count,
       string_agg((x."__file" || ':' || x."__line"), ';' ORDER BY x.__row) AS locations
FROM sink AS x SEMI JOIN (SELECT "aid" FROM sink GROUP BY "aid" HAVING count(*) > 1) AS r
     ON (x."aid" IS NOT DISTINCT FROM r."aid")
GROUP BY x."aid"
UNION ALL
-- The opening's groups on more than one row, then their rows' locations.
SELECT x."aid", 'opening' AS side, count(*) AS row_count,
       string_agg((x."__file" || ':' || x."__line"), ';' ORDER BY x.__row) AS locations
FROM opening AS x SEMI JOIN (SELECT "aid" FROM opening GROUP BY "aid" HAVING count(*) > 1) AS r
     ON (x."aid" IS NOT DISTINCT FROM r."aid")
GROUP BY x."aid"
