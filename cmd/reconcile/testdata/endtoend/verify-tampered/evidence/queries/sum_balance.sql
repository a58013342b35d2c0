-- check: sum_balance
-- assertion: completeness, accuracy
-- description: Exact decimal sums of each measure in source and sink, in total or per group when group_by is given;
-- description: an exception is a total or group where any sum differs (difference = sink - source). With
-- description: balance_tolerance: a difference within the measure's tolerance is listed but not an exception
-- description: (within_tolerance), and with group_by the total is balanced too (the row where total is true).
-- requires: records, measures
WITH s AS (
    SELECT "account", CAST(coalesce(sum("amount"), 0) AS DECIMAL(38,2)) AS "amount"
    FROM source
    GROUP BY "account"
), k AS (
    SELECT "account", CAST(coalesce(sum("amount"), 0) AS DECIMAL(38,2)) AS "amount"
    FROM sink
    GROUP BY "account"
), balanced AS (
    SELECT coalesce(s."account", k."account") AS "account", 
           CAST(coalesce(s."amount", 0) AS DECIMAL(38,2)) AS "source_amount",
           CAST(coalesce(k."amount", 0) AS DECIMAL(38,2)) AS "sink_amount",
           CAST(coalesce(k."amount", 0) - coalesce(s."amount", 0) AS DECIMAL(38,2)) AS "difference_amount"
    FROM s FULL OUTER JOIN k ON (s."account" IS NOT DISTINCT FROM k."account")
)
SELECT b."account", b."source_amount", b."sink_amount", b."difference_amount"
FROM balanced AS b
WHERE b."difference_amount" <> 0
