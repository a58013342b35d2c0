-- check: missing_ids
-- assertion: completeness
-- description: Source records whose id has no row in the sink: entries that were never posted.
-- requires: id
-- reads: id_counts
SELECT s."id",
       count(*) AS source_rows,
       CAST(sum(s."amount") AS DECIMAL(38,2)) AS "source_amount",
       arg_min((s."__file" || ':' || s."__line"), s.__row) AS source_location
-- The ids with no sink row, from id_counts (_id_counts.sql): one pass over both inputs for all the id checks.
FROM source AS s SEMI JOIN (SELECT x."id" FROM id_counts AS x WHERE x.__sink_rows = 0 AND NOT ((x."id" IS NULL OR length(CAST(x."id" AS VARCHAR)) = 0))) AS x ON (s."id" IS NOT DISTINCT FROM x."id")
WHERE NOT ((s."id" IS NULL OR length(CAST(s."id" AS VARCHAR)) = 0))
GROUP BY s."id"
