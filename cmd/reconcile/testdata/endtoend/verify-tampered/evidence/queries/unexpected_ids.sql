-- check: unexpected_ids
-- assertion: accuracy
-- description: Sink rows whose id is not in the source: postings with no source record behind them.
-- requires: id
-- reads: id_counts
SELECT k."id",
       count(*) AS sink_rows,
       CAST(sum(k."amount") AS DECIMAL(38,2)) AS "sink_amount",
       arg_min((k."__file" || ':' || k."__line"), k.__row) AS sink_location
-- The ids with no source row, from id_counts (_id_counts.sql).
FROM sink AS k SEMI JOIN (SELECT x."id" FROM id_counts AS x WHERE x.__source_rows = 0 AND NOT ((x."id" IS NULL OR length(CAST(x."id" AS VARCHAR)) = 0))) AS x ON (k."id" IS NOT DISTINCT FROM x."id")
WHERE NOT ((k."id" IS NULL OR length(CAST(k."id" AS VARCHAR)) = 0))
GROUP BY k."id"
