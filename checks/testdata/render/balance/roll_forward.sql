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
WITH rolled AS (
WITH o AS (
    SELECT "aid", grouping("aid") > 0 AS __total, CAST(coalesce(sum("delta"), 0) AS DECIMAL(38,2)) AS "delta", count(*) AS __rows
    FROM opening
    GROUP BY GROUPING SETS (("aid"), ())
), s AS (
    SELECT "aid", grouping("aid") > 0 AS __total, CAST(coalesce(sum("delta"), 0) AS DECIMAL(38,2)) AS "delta", count(*) AS __rows
    FROM source
    GROUP BY GROUPING SETS (("aid"), ())
), k AS (
    SELECT "aid", grouping("aid") > 0 AS __total, CAST(coalesce(sum("delta"), 0) AS DECIMAL(38,2)) AS "delta", count(*) AS __rows
    FROM sink
    GROUP BY GROUPING SETS (("aid"), ())
), g AS (
    SELECT "aid", __total FROM o
    UNION SELECT "aid", __total FROM s
    UNION SELECT "aid", __total FROM k
)
SELECT g."aid", g.__total AS total, 
       CAST(coalesce(o."delta", 0) AS DECIMAL(38,2)) AS "opening_delta",
       CAST(coalesce(s."delta", 0) AS DECIMAL(38,2)) AS "postings_delta",
       CAST(coalesce(o."delta", 0) + coalesce(s."delta", 0) AS DECIMAL(38,2)) AS "expected_delta",
       CAST(coalesce(k."delta", 0) AS DECIMAL(38,2)) AS "closing_delta",
       CAST(coalesce(k."delta", 0) - (coalesce(o."delta", 0) + coalesce(s."delta", 0)) AS DECIMAL(38,2)) AS "difference_delta",
       CASE WHEN g.__total THEN NULL WHEN o.__rows IS NULL AND k.__rows IS NULL THEN 'postings_only'
            WHEN o.__rows IS NULL THEN 'opened' WHEN k.__rows IS NULL THEN 'closed' ELSE 'continuing' END AS status,
       coalesce(s.__rows, 0) AS source_postings
FROM g
LEFT JOIN o ON (g."aid" IS NOT DISTINCT FROM o."aid") AND g.__total = o.__total
LEFT JOIN s ON (g."aid" IS NOT DISTINCT FROM s."aid") AND g.__total = s.__total
LEFT JOIN k ON (g."aid" IS NOT DISTINCT FROM k."aid") AND g.__total = k.__total
), unbalanced AS (
    -- The groups that do not roll forward, with each difference and
    -- expected balance as unscaled integers for the exact percentage.
    SELECT *,
           CAST(replace(CAST("difference_delta" AS VARCHAR), '.', '') AS HUGEINT) AS "__part_delta", CAST(replace(CAST("expected_delta" AS VARCHAR), '.', '') AS HUGEINT) AS "__whole_delta"
    FROM rolled
    WHERE "difference_delta" <> 0
)
SELECT r."aid", r.total, r."opening_delta", r."postings_delta", r."expected_delta", r."closing_delta", r."difference_delta",
       CASE WHEN r."__whole_delta" = 0 THEN CAST(NULL AS DECIMAL(38,6))
     ELSE CAST(r."__part_delta" * 100000000 // r."__whole_delta"
               + CASE WHEN abs(r."__part_delta" * 100000000 % r."__whole_delta") >= abs(r."__whole_delta") - abs(r."__part_delta" * 100000000 % r."__whole_delta")
                      THEN sign(r."__part_delta") * sign(r."__whole_delta") ELSE 0 END AS DECIMAL(38,0))
          * CAST(0.000001 AS DECIMAL(7,6)) END AS "difference_pct_delta",
       '1.00' AS "tolerance_delta",
       r.status, r.source_postings,
       (r."difference_delta" = 0 OR coalesce(abs(CAST(r."closing_delta" - r."expected_delta" AS DECIMAL(38,2))) <= CAST('1.00' AS DECIMAL(38,2)), FALSE)) AS within_tolerance
FROM unbalanced AS r
