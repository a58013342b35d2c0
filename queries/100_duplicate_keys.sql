-- check: duplicate_keys
-- assertion: accuracy
-- description: Logical keys of a windowed sink (window and group) on more than one sink row — with emission
-- description: last_by, more than one row of the emission that counts — with each row's values, checkpoint id and
-- description: location, whether the copies conflict, and the restart that explains the second write.
-- requires: reperform
-- chart: replayed_keys
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, checkpoint_ids=checkpoints, first_checkpoint=checkpoints, restart=restart
WITH d AS (
    SELECT {{replaykey "k" .Replay.GroupBy}},
           count(*) AS row_count,
           count(DISTINCT {{valuekey "k" .Replay.Columns}}) > 1 AS conflicting,
           {{sortedlist "k.__checkpoint"}} AS checkpoint_ids,
           min(k.__epoch) AS first_checkpoint,
           string_agg({{rowtext "k" .Replay}}, '; ' ORDER BY k.__row) AS sink_rows
    FROM replay_sink AS k
    WHERE k.__compared
    GROUP BY {{replaygroup "k" .Replay.GroupBy}}
    HAVING count(*) > 1
)
SELECT d.*, {{restartof "d.first_checkpoint"}} AS restart
FROM d
