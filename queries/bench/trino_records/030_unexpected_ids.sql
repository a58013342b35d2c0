-- statement: unexpected_ids
-- description: Sink ids not in the source (NOT EXISTS), with row count, amount, checkpoint ids and first file.
SELECT k.entry_id, count(*) AS sink_rows, sum(k.amount) AS sink_amount,
       array_join(array_sort(array_distinct(array_agg(k.checkpoint_id))), ';') AS checkpoint_ids, min(k."$path") AS sink_file
FROM {{.Sink}} AS k
WHERE k.entry_id <> '' AND NOT EXISTS (SELECT 1 FROM {{.Source}} AS s WHERE s.entry_id = k.entry_id)
GROUP BY k.entry_id
