-- check: sum_balance
-- assertion: completeness, accuracy
-- description: Exact decimal sums of each measure in source and sink, in total or per group when group_by is given;
-- description: an exception is a total or group where any sum differs (difference = sink - source).
-- requires: records, measures
-- chart: balance
-- columns: source_*=source, sink_*=sink, difference_*=difference
WITH s AS (
    SELECT "account", CAST(coalesce(sum("amount"), 0) AS DECIMAL(38,2)) AS "amount", CAST(coalesce(sum("fee"), 0) AS DECIMAL(38,4)) AS "fee"
    FROM source
    GROUP BY "account"
), k AS (
    SELECT "account", CAST(coalesce(sum("amount"), 0) AS DECIMAL(38,2)) AS "amount", CAST(coalesce(sum("fee"), 0) AS DECIMAL(38,4)) AS "fee"
    FROM sink
    GROUP BY "account"
)
SELECT coalesce(s."account", k."account") AS "account", 
       CAST(coalesce(s."amount", 0) AS DECIMAL(38,2)) AS "source_amount",
       CAST(coalesce(k."amount", 0) AS DECIMAL(38,2)) AS "sink_amount",
       CAST(coalesce(k."amount", 0) - coalesce(s."amount", 0) AS DECIMAL(38,2)) AS "difference_amount",
       CAST(coalesce(s."fee", 0) AS DECIMAL(38,4)) AS "source_fee",
       CAST(coalesce(k."fee", 0) AS DECIMAL(38,4)) AS "sink_fee",
       CAST(coalesce(k."fee", 0) - coalesce(s."fee", 0) AS DECIMAL(38,4)) AS "difference_fee"
FROM s FULL OUTER JOIN k ON (s."account" IS NOT DISTINCT FROM k."account")
WHERE coalesce(s."amount", 0) <> coalesce(k."amount", 0) OR coalesce(s."fee", 0) <> coalesce(k."fee", 0)
