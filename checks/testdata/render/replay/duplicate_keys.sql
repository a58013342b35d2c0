-- check: duplicate_keys
-- assertion: accuracy
-- description: Logical keys of a windowed sink (window and group) on more than one sink row — with emission
-- description: last_by, more than one row of the emission that counts — with each row's values, checkpoint id and
-- description: location, whether the copies conflict, and the restart that explains the second write.
-- requires: reperform
-- chart: replayed_keys
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, checkpoint_ids=checkpoints, first_checkpoint=checkpoints, restart=restart
-- writes: row_count, conflicting, sink_rows
WITH x AS (
    -- The repeated keys first (a plain count), so the ordered aggregates below run over their rows only.
    SELECT x.__window_start, x.__window_end, x."region"
    FROM replay_sink AS x
    WHERE x.__compared
    GROUP BY x.__window_start, x.__window_end, x."region"
    HAVING count(*) > 1
), d AS (
    SELECT k.__window_start AS window_start, k.__window_end AS window_end, k."region",
           count(*) AS row_count,
           count(DISTINCT CAST(struct_pack("total" := k."total", "n" := k."n") AS VARCHAR)) > 1 AS conflicting,
           array_to_string(list(DISTINCT CAST(k.__checkpoint AS VARCHAR) ORDER BY TRY_CAST(CAST(k.__checkpoint AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(k.__checkpoint AS VARCHAR)), ';') AS checkpoint_ids,
           min(k.__epoch) AS first_checkpoint,
           string_agg(('total=' || coalesce(CAST(k."total" AS VARCHAR), 'NULL') || ' ' || 'n=' || coalesce(CAST(k."n" AS VARCHAR), 'NULL') || ' ' || 'checkpoint=' || coalesce(k.__checkpoint, 'NULL') || ' ' || 'emission=' || coalesce(k.__emission, 'NULL') || ' ' || 'at ' || k.__file || ':' || k.__line), '; ' ORDER BY k.__row) AS sink_rows
    FROM replay_sink AS k
    SEMI JOIN x ON (k.__window_start IS NOT DISTINCT FROM x.__window_start AND k.__window_end IS NOT DISTINCT FROM x.__window_end AND k."region" IS NOT DISTINCT FROM x."region")
    WHERE k.__compared
    GROUP BY k.__window_start, k.__window_end, k."region"
    HAVING count(*) > 1
)
SELECT d.*, (SELECT r.restart FROM restarts AS r WHERE r.restored_checkpoint < (d.first_checkpoint) AND (d.first_checkpoint) <= r.open_epoch ORDER BY r.restart_time LIMIT 1) AS restart
FROM d
