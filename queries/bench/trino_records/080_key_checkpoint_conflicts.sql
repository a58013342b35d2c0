-- statement: key_checkpoint_conflicts
-- description: Sink keys written under more than one checkpoint id, pre-filtered to repeated keys.
WITH r AS (SELECT entry_id FROM {{.Sink}} GROUP BY entry_id HAVING count(*) > 1)
SELECT k.entry_id, count(DISTINCT k.checkpoint_id) AS checkpoints,
       array_join(array_sort(array_distinct(array_agg(k.checkpoint_id))), ';') AS checkpoint_ids, count(*) AS row_count,
       listagg(k."$path", ';') WITHIN GROUP (ORDER BY k."$path") AS files
FROM {{.Sink}} AS k WHERE k.entry_id IN (SELECT entry_id FROM r)
GROUP BY k.entry_id
HAVING count(DISTINCT k.checkpoint_id) > 1
