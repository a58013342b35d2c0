-- check: key_checkpoint_conflicts
-- assertion: accuracy
-- description: Sink logical keys written under more than one checkpoint id: the signature of a window or record
-- description: flushed, then replayed after a restore from an earlier checkpoint and written again. A row with no
-- description: checkpoint id counts as checkpoint NULL. For a windowed sink the key is the window as an instant (one
-- description: instant written two ways is one key) plus the group, and the emission with last_by.
-- requires: logical_key, checkpoint
-- reads: id_counts
-- chart: replayed_keys
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, checkpoint_ids=checkpoints, locations=location
-- writes: checkpoints, row_count
WITH repeated AS (
    SELECT k.__window_start, k.__window_end, k."region", k.__emission
    FROM replay_sink AS k
    GROUP BY k.__window_start, k.__window_end, k."region", k.__emission
    HAVING count(*) > 1
)
SELECT k.__window_start AS window_start, k.__window_end AS window_end, k."region", k.__emission AS emission,
       count(DISTINCT coalesce(k.__checkpoint, 'NULL')) AS checkpoints,
       array_to_string(list(DISTINCT CAST(coalesce(k.__checkpoint, 'NULL') AS VARCHAR) ORDER BY TRY_CAST(CAST(coalesce(k.__checkpoint, 'NULL') AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(coalesce(k.__checkpoint, 'NULL') AS VARCHAR)), ';') AS checkpoint_ids,
       count(*) AS row_count,
       string_agg((k."__file" || ':' || k."__line"), ';' ORDER BY k.__row) AS locations
FROM replay_sink AS k SEMI JOIN repeated AS r ON (k.__window_end = r.__window_end AND k."region" IS NOT DISTINCT FROM r."region") AND k.__emission IS NOT DISTINCT FROM r.__emission
GROUP BY k.__window_start, k.__window_end, k."region", k.__emission
HAVING count(DISTINCT coalesce(k.__checkpoint, 'NULL')) > 1
