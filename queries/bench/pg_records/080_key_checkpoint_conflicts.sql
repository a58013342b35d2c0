-- statement: key_checkpoint_conflicts
-- description: Sink keys written under more than one checkpoint id, pre-filtered to repeated keys.
COPY (
    WITH r AS (SELECT entry_id FROM {{q .Sink}} GROUP BY entry_id HAVING count(*) > 1)
    SELECT k.entry_id, count(DISTINCT k.checkpoint_id) AS checkpoints,
           string_agg(DISTINCT k.checkpoint_id::text, ';') AS checkpoint_ids, count(*) AS row_count,
           string_agg(k.ctid::text, ';' ORDER BY k.ctid) AS rows
    FROM {{q .Sink}} AS k WHERE k.entry_id IN (SELECT entry_id FROM r)
    GROUP BY k.entry_id
    HAVING count(DISTINCT k.checkpoint_id) > 1
    ORDER BY 1
) TO STDOUT (FORMAT csv, HEADER true)
