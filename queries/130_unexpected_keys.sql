-- check: unexpected_keys
-- assertion: accuracy
-- description: Sink windows and groups with no source event behind them, with their rows; on_window_grid is false when
-- description: the window does not even start on the window assigner's grid (wrong size or offset).
-- requires: reperform
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, checkpoint_ids=checkpoints
-- writes: row_count, on_window_grid, sink_rows
SELECT {{replaykey "k" .Replay.GroupBy}},
       count(*) AS row_count,
       bool_and((epoch_us(k.__window_start) - {{.Replay.Window.Offset.Micros}}) % {{if .Replay.Window.Sliding}}{{.Replay.Window.Slide.Micros}}{{else}}{{.Replay.Window.Size.Micros}}{{end}} = 0) AS on_window_grid,
       {{sortedlist "k.__checkpoint"}} AS checkpoint_ids,
       string_agg({{rowtext "k" .Replay}}, '; ' ORDER BY k.__row) AS sink_rows
FROM replay_sink AS k
WHERE NOT EXISTS (SELECT 1 FROM expected AS e WHERE {{replaymatch "k" "e" .Replay.GroupBy}})
GROUP BY {{replaygroup "k" .Replay.GroupBy}}
