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
FROM sink AS k ANTI JOIN source AS s ON (s."entry_id" IS NOT DISTINCT FROM k."entry_id" AND s."leg" IS NOT DISTINCT FROM k."leg")
WHERE NOT ((k."entry_id" IS NULL OR length(CAST(k."entry_id" AS VARCHAR)) = 0) AND (k."leg" IS NULL OR length(CAST(k."leg" AS VARCHAR)) = 0))
GROUP BY k."entry_id", k."leg"
