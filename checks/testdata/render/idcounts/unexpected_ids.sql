-- check: unexpected_ids
-- assertion: accuracy
-- description: Sink rows whose id is not in the source: postings with no source record behind them.
-- requires: id
-- reads: id_counts
-- notes: partial_null_ids
-- columns: sink_rows=sink, checkpoint_ids=checkpoints, sink_location=location, sink_*=sink
SELECT k."entry_id", k."leg",
       count(*) AS sink_rows,
       CAST(sum(k."amount") AS DECIMAL(38,2)) AS "sink_amount",
       CAST(sum(k."fee") AS DECIMAL(38,4)) AS "sink_fee",
       array_to_string(list(DISTINCT CAST(coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL') AS VARCHAR) ORDER BY TRY_CAST(CAST(coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL') AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL') AS VARCHAR)), ';') AS checkpoint_ids,
       arg_min((k."__file" || ':' || k."__line"), k.__row) AS sink_location
-- The ids with no source row, from id_counts (_id_counts.sql).
FROM sink AS k SEMI JOIN (SELECT x."entry_id", x."leg" FROM id_counts AS x WHERE x.__source_rows = 0 AND NOT ((x."entry_id" IS NULL OR length(CAST(x."entry_id" AS VARCHAR)) = 0) AND (x."leg" IS NULL OR length(CAST(x."leg" AS VARCHAR)) = 0))) AS x ON (k."entry_id" IS NOT DISTINCT FROM x."entry_id" AND k."leg" IS NOT DISTINCT FROM x."leg")
WHERE NOT ((k."entry_id" IS NULL OR length(CAST(k."entry_id" AS VARCHAR)) = 0) AND (k."leg" IS NULL OR length(CAST(k."leg" AS VARCHAR)) = 0))
GROUP BY k."entry_id", k."leg"
