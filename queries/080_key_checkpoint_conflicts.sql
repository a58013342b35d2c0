-- check: key_checkpoint_conflicts
-- assertion: accuracy
-- description: Sink logical keys written under more than one checkpoint id: the signature of a window or record
-- description: flushed, then replayed after a restore from an earlier checkpoint and written again. A row with no checkpoint id
-- description: counts as checkpoint NULL.
-- requires: logical_key, checkpoint
WITH repeated AS (
    SELECT {{cols "" .LogicalKey}} FROM sink GROUP BY {{cols "" .LogicalKey}} HAVING count(*) > 1
)
SELECT {{cols "k" .LogicalKey}},
       count(DISTINCT {{cpid "k" .Checkpoint}}) AS checkpoints,
       {{sortedlist (cpid "k" .Checkpoint)}} AS checkpoint_ids,
       count(*) AS row_count,
       string_agg({{loc "k"}}, ';' ORDER BY k.__row) AS locations
FROM sink AS k
WHERE EXISTS (SELECT 1 FROM repeated AS r WHERE {{match "k" "r" .LogicalKey}})
GROUP BY {{cols "k" .LogicalKey}}
HAVING count(DISTINCT {{cpid "k" .Checkpoint}}) > 1
