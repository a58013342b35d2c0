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
    -- The logical key is the record id: its repeated values, null keys
    -- included, are those of id_counts (_id_counts.sql) on more than one
    -- sink row.
    SELECT x."entry_id", x."leg" FROM id_counts AS x WHERE x.__sink_rows > 1
)
SELECT k."entry_id", k."leg",
       count(DISTINCT coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL')) AS checkpoints,
       array_to_string(list(DISTINCT CAST(coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL') AS VARCHAR) ORDER BY TRY_CAST(CAST(coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL') AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL') AS VARCHAR)), ';') AS checkpoint_ids,
       count(*) AS row_count,
       string_agg((k."__file" || ':' || k."__line"), ';' ORDER BY k.__row) AS locations
FROM sink AS k SEMI JOIN repeated AS r ON (k."entry_id" IS NOT DISTINCT FROM r."entry_id" AND k."leg" IS NOT DISTINCT FROM r."leg")
GROUP BY k."entry_id", k."leg"
HAVING count(DISTINCT coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL')) > 1
