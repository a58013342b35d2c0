-- check: row_count_balance
-- assertion: completeness, accuracy
-- description: Record counts of source and sink, in total or per group when group_by is given; an exception is a
-- description: total or group whose counts differ (difference = sink - source).
-- requires: records, postings
-- chart: balance
-- columns: source_rows=source, sink_rows=sink, difference=difference
WITH s AS (
    SELECT "account", count(*) AS n FROM source
    GROUP BY "account"
), k AS (
    SELECT "account", count(*) AS n FROM sink
    GROUP BY "account"
)
SELECT coalesce(s."account", k."account") AS "account", 
       coalesce(s.n, 0) AS source_rows,
       coalesce(k.n, 0) AS sink_rows,
       coalesce(k.n, 0) - coalesce(s.n, 0) AS difference
FROM s FULL OUTER JOIN k ON (s."account" IS NOT DISTINCT FROM k."account")
WHERE coalesce(s.n, 0) <> coalesce(k.n, 0)
