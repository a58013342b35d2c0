-- statement: unexpected_ids
-- description: Sink ids not in the source (NOT EXISTS), with row count, amount, checkpoint ids and first row.
COPY (
    SELECT k.entry_id, count(*) AS sink_rows, sum(k.amount) AS sink_amount,
           string_agg(DISTINCT k.checkpoint_id::text, ';') AS checkpoint_ids, min(k.ctid)::text AS sink_row
    FROM {{q .Sink}} AS k
    WHERE k.entry_id <> '' AND NOT EXISTS (SELECT 1 FROM {{q .Source}} AS s WHERE s.entry_id = k.entry_id)
    GROUP BY k.entry_id
    ORDER BY k.entry_id
) TO STDOUT (FORMAT csv, HEADER true)
