-- check: early_writes
-- assertion: completeness, accuracy
-- description: Sink rows (the emissions that count) whose watermark was before their window's end: written before
-- description: the window was complete, so the value may be partial — and an upsert replayed early overwrites a
-- description: complete value with a partial one.
-- requires: reperform, watermark
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, restart=restart
SELECT {{replaykey "k" .Replay.GroupBy}},
       k.__watermark AS watermark,
       k.__window_end - k.__watermark AS before_window_end,
       {{rowtext "k" .Replay}} AS sink_row,
       {{restartof "k.__epoch"}} AS restart
FROM replay_sink AS k
WHERE k.__compared AND k.__watermark < k.__window_end
