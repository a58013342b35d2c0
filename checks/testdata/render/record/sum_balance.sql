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
    SELECT "account", grouping("account") > 0 AS __total, CAST(coalesce(sum("amount"), 0) AS DECIMAL(38,2)) AS "amount", CAST(coalesce(sum("fee"), 0) AS DECIMAL(38,4)) AS "fee", count(*) AS __postings
    FROM source
    GROUP BY GROUPING SETS (("account"), ())
), k AS (
    SELECT "account", grouping("account") > 0 AS __total, CAST(coalesce(sum("amount"), 0) AS DECIMAL(38,2)) AS "amount", CAST(coalesce(sum("fee"), 0) AS DECIMAL(38,4)) AS "fee"
    FROM sink
    GROUP BY GROUPING SETS (("account"), ())
), balanced AS (
    SELECT coalesce(s."account", k."account") AS "account", coalesce(s.__total, k.__total) AS total,
           CAST(coalesce(s."amount", 0) AS DECIMAL(38,2)) AS "source_amount",
           CAST(coalesce(k."amount", 0) AS DECIMAL(38,2)) AS "sink_amount",
           CAST(coalesce(k."amount", 0) - coalesce(s."amount", 0) AS DECIMAL(38,2)) AS "difference_amount",
           CAST(coalesce(s."fee", 0) AS DECIMAL(38,4)) AS "source_fee",
           CAST(coalesce(k."fee", 0) AS DECIMAL(38,4)) AS "sink_fee",
           CAST(coalesce(k."fee", 0) - coalesce(s."fee", 0) AS DECIMAL(38,4)) AS "difference_fee",
           coalesce(s.__postings, 0) AS source_postings
    FROM s FULL OUTER JOIN k ON (s."account" IS NOT DISTINCT FROM k."account") AND s.__total = k.__total
), unbalanced AS (
    -- The groups out of balance, with each difference and source sum as
    -- unscaled integers for the exact percentage.
    SELECT *,
           CAST(replace(CAST("difference_amount" AS VARCHAR), '.', '') AS HUGEINT) AS "__part_amount", CAST(replace(CAST("source_amount" AS VARCHAR), '.', '') AS HUGEINT) AS "__whole_amount",
           CAST(replace(CAST("difference_fee" AS VARCHAR), '.', '') AS HUGEINT) AS "__part_fee", CAST(replace(CAST("source_fee" AS VARCHAR), '.', '') AS HUGEINT) AS "__whole_fee"
    FROM balanced
    WHERE "difference_amount" <> 0 OR "difference_fee" <> 0
)
SELECT b."account", b.total, b."source_amount", b."sink_amount", b."difference_amount",
       CASE WHEN b."__whole_amount" = 0 THEN CAST(NULL AS DECIMAL(38,6))
     ELSE CAST(b."__part_amount" * 100000000 // b."__whole_amount"
               + CASE WHEN abs(b."__part_amount" * 100000000 % b."__whole_amount") >= abs(b."__whole_amount") - abs(b."__part_amount" * 100000000 % b."__whole_amount")
                      THEN sign(b."__part_amount") * sign(b."__whole_amount") ELSE 0 END AS DECIMAL(38,0))
          * CAST(0.000001 AS DECIMAL(7,6)) END AS "difference_pct_amount", '0.01' AS "tolerance_amount", b."source_fee", b."sink_fee", b."difference_fee",
       CASE WHEN b."__whole_fee" = 0 THEN CAST(NULL AS DECIMAL(38,6))
     ELSE CAST(b."__part_fee" * 100000000 // b."__whole_fee"
               + CASE WHEN abs(b."__part_fee" * 100000000 % b."__whole_fee") >= abs(b."__whole_fee") - abs(b."__part_fee" * 100000000 % b."__whole_fee")
                      THEN sign(b."__part_fee") * sign(b."__whole_fee") ELSE 0 END AS DECIMAL(38,0))
          * CAST(0.000001 AS DECIMAL(7,6)) END AS "difference_pct_fee", CAST(NULL AS VARCHAR) AS "tolerance_fee",
       b.source_postings,
       (b."difference_amount" = 0 OR coalesce(abs(CAST(b."sink_amount" - b."source_amount" AS DECIMAL(38,2))) <= CAST('0.01' AS DECIMAL(38,2)), FALSE))
       AND (b."difference_fee" = 0) AS within_tolerance
FROM unbalanced AS b
