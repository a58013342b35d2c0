-- statement: unexpected_ids
-- description: Sink ids not in the source (an anti-join), with their row count, amount, checkpoint ids and first
-- description: row.
COPY (
    SELECT k.entry_id, count(*) AS sink_rows, sum(k.amount) AS sink_amount,
           string_agg(DISTINCT k.checkpoint_id, ';' ORDER BY k.checkpoint_id) AS checkpoint_ids, min(k.rowid) + 1 AS sink_row
    FROM sink AS k ANTI JOIN source AS s ON s.entry_id = k.entry_id
    WHERE k.entry_id IS NOT NULL AND k.entry_id <> ''
    GROUP BY k.entry_id
    ORDER BY k.entry_id
) TO {{lit (printf "%s/unexpected_ids.csv" .Out)}} (FORMAT csv, HEADER true)
