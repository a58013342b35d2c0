-- check: missing_ids
-- assertion: completeness
-- description: Source records whose id has no row in the sink: entries that were never posted.
-- requires: id
-- reads: id_counts
-- notes: partial_null_ids
-- columns: source_rows=source, source_location=location, source_*=source, uncommitted_file=location
SELECT s."entry_id", s."leg",
       count(*) AS source_rows,
       CAST(sum(s."amount") AS DECIMAL(38,2)) AS "source_amount",
       CAST(sum(s."fee") AS DECIMAL(38,4)) AS "source_fee",
       arg_min((s."__file" || ':' || s."__line"), s.__row) AS source_location
-- The ids with no sink row, from id_counts (_id_counts.sql): one pass over both inputs for all the id checks.
FROM source AS s SEMI JOIN (SELECT x."entry_id", x."leg" FROM id_counts AS x WHERE x.__sink_rows = 0 AND NOT ((x."entry_id" IS NULL OR length(CAST(x."entry_id" AS VARCHAR)) = 0) AND (x."leg" IS NULL OR length(CAST(x."leg" AS VARCHAR)) = 0))) AS x ON (s."entry_id" IS NOT DISTINCT FROM x."entry_id" AND s."leg" IS NOT DISTINCT FROM x."leg")
WHERE NOT ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
GROUP BY s."entry_id", s."leg"
