-- check: value_mismatches
-- assertion: accuracy
-- description: Ids present in both inputs whose measures differ (exact decimal comparison), one row per differing
-- description: source/sink row pair.
-- requires: id, measures
-- notes: partial_null_ids
-- columns: source_location=location, sink_location=location, source_*=source, sink_*=sink, difference_*=difference
SELECT s."entry_id", s."leg",
       s."amount" AS "source_amount",
       k."amount" AS "sink_amount",
       CAST(k."amount" - s."amount" AS DECIMAL(38,2)) AS "difference_amount",
       s."fee" AS "source_fee",
       k."fee" AS "sink_fee",
       CAST(k."fee" - s."fee" AS DECIMAL(38,4)) AS "difference_fee",
       (s."__file" || ':' || s."__line") AS source_location,
       (k."__file" || ':' || k."__line") AS sink_location
FROM source AS s
JOIN sink AS k ON (s."entry_id" IS NOT DISTINCT FROM k."entry_id" AND s."leg" IS NOT DISTINCT FROM k."leg")
WHERE NOT ((s."entry_id" IS NULL OR CAST(s."entry_id" AS VARCHAR) = '') AND (s."leg" IS NULL OR CAST(s."leg" AS VARCHAR) = ''))
  AND (s."amount" IS DISTINCT FROM k."amount" OR s."fee" IS DISTINCT FROM k."fee")
