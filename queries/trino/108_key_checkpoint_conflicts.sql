-- statement: key_checkpoint_conflicts
-- description: Check key_checkpoint_conflicts (queries/080_key_checkpoint_conflicts.sql) in Trino's dialect, for a
-- description: sink of records (a windowed sink's reperform: is refused on Trino): the sink logical keys written
-- description: under more than one checkpoint id, a row with none counting as checkpoint NULL; the locations in text
-- description: order (Trino has no input order).
-- returns: the logical-key columns, checkpoints, checkpoint_ids, row_count, locations
WITH repeated AS (
    SELECT {{cols "" .LogicalKey}} FROM sink GROUP BY {{cols "" .LogicalKey}} HAVING count(*) > 1
)
SELECT {{cols "k" .LogicalKey}},
       count(DISTINCT {{cpid "k" .Checkpoint}}) AS checkpoints,
       {{sortedlist (cpid "k" .Checkpoint)}} AS checkpoint_ids,
       count(*) AS row_count,
       listagg({{loc "k"}}, ';') WITHIN GROUP (ORDER BY {{loc "k"}}) AS locations
FROM sink AS k JOIN repeated AS r ON {{$.Match "k" "r" .LogicalKey}}
GROUP BY {{cols "k" .LogicalKey}}
HAVING count(DISTINCT {{cpid "k" .Checkpoint}}) > 1
