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
WITH s AS (
    SELECT "aid", grouping("aid") > 0 AS __total, CAST(coalesce(sum("delta"), 0) AS DECIMAL(38,2)) AS "delta", count(*) AS __postings
    FROM source
    GROUP BY GROUPING SETS (("aid"), ())
), k AS (
    SELECT "aid", grouping("aid") > 0 AS __total, CAST(coalesce(sum("delta"), 0) AS DECIMAL(38,2)) AS "delta"
    FROM sink
    GROUP BY GROUPING SETS (("aid"), ())
), balanced AS (
    SELECT coalesce(s."aid", k."aid") AS "aid", coalesce(s.__total, k.__total) AS total,
           CAST(coalesce(s."delta", 0) AS DECIMAL(38,2)) AS "source_delta",
           CAST(coalesce(k."delta", 0) AS DECIMAL(38,2)) AS "sink_delta",
           CAST(coalesce(k."delta", 0) - coalesce(s."delta", 0) AS DECIMAL(38,2)) AS "difference_delta",
           coalesce(s.__postings, 0) AS source_postings
    FROM s FULL OUTER JOIN k ON (s."aid" IS NOT DISTINCT FROM k."aid") AND s.__total = k.__total
), unbalanced AS (
    -- The groups out of balance, with each difference and source sum as
    -- unscaled integers for the exact percentage.
    SELECT *,
           CAST(replace(CAST("difference_delta" AS VARCHAR), '.', '') AS HUGEINT) AS "__part_delta", CAST(replace(CAST("source_delta" AS VARCHAR), '.', '') AS HUGEINT) AS "__whole_delta"
    FROM balanced
    WHERE "difference_delta" <> 0
)
SELECT b."aid", b.total, b."source_delta", b."sink_delta", b."difference_delta",
       CASE WHEN b."__whole_delta" = 0 THEN CAST(NULL AS DECIMAL(38,6))
     ELSE CAST(b."__part_delta" * 100000000 // b."__whole_delta"
               + CASE WHEN abs(b."__part_delta" * 100000000 % b."__whole_delta") >= abs(b."__whole_delta") - abs(b."__part_delta" * 100000000 % b."__whole_delta")
                      THEN sign(b."__part_delta") * sign(b."__whole_delta") ELSE 0 END AS DECIMAL(38,0))
          * CAST(0.000001 AS DECIMAL(7,6)) END AS "difference_pct_delta", '1.00' AS "tolerance_delta",
       b.source_postings,
       (b."difference_delta" = 0 OR coalesce(abs(CAST(b."sink_delta" - b."source_delta" AS DECIMAL(38,2))) <= CAST('1.00' AS DECIMAL(38,2)), FALSE)) AS within_tolerance
FROM unbalanced AS b
