-- statement: key_checkpoint_conflicts
-- description: Sink keys (entry_id) written under more than one checkpoint id, pre-filtered to repeated keys: the
-- description: checkpoint ids, the row count and every row.
COPY (
    WITH r AS (SELECT entry_id FROM sink GROUP BY entry_id HAVING count(*) > 1)
    SELECT k.entry_id, count(DISTINCT k.checkpoint_id) AS checkpoints,
           string_agg(DISTINCT k.checkpoint_id, ';' ORDER BY k.checkpoint_id) AS checkpoint_ids, count(*) AS row_count,
           string_agg(k.rowid + 1, ';' ORDER BY k.rowid) AS rows
    FROM sink AS k SEMI JOIN r ON k.entry_id = r.entry_id
    GROUP BY k.entry_id
    HAVING count(DISTINCT k.checkpoint_id) > 1
    ORDER BY 1
) TO {{lit (printf "%s/key_checkpoint_conflicts.csv" .Out)}} (FORMAT csv, HEADER true)
