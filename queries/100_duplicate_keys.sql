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
    SELECT {{replaygroup "x" .Replay.GroupBy}}
    FROM replay_sink AS x
    WHERE x.__compared
    GROUP BY {{replaygroup "x" .Replay.GroupBy}}
    HAVING count(*) > 1
), d AS (
    SELECT {{replaykey "k" .Replay.GroupBy}},
           count(*) AS row_count,
           count(DISTINCT {{valuekey "k" .Replay.Columns}}) > 1 AS conflicting,
           {{sortedlist "k.__checkpoint"}} AS checkpoint_ids,
           min(k.__epoch) AS first_checkpoint,
           string_agg({{rowtext "k" .Replay}}, '; ' ORDER BY k.__row) AS sink_rows
    FROM replay_sink AS k
    SEMI JOIN x ON {{replaysame "k" "x" .Replay.GroupBy}}
    WHERE k.__compared
    GROUP BY {{replaygroup "k" .Replay.GroupBy}}
    HAVING count(*) > 1
)
SELECT d.*, {{restartof "d.first_checkpoint"}} AS restart
FROM d
