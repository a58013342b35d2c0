-- check: early_writes
-- assertion: completeness, accuracy
-- description: Sink rows (the emissions that count) whose watermark was before their window's end: written before
-- description: the window was complete, so the value may be partial — and an upsert replayed early overwrites a
-- description: complete value with a partial one.
-- requires: reperform, watermark
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, restart=restart
SELECT k.__window_start AS window_start, k.__window_end AS window_end, k."region",
       k.__watermark AS watermark,
       k.__window_end - k.__watermark AS before_window_end,
       ('total=' || coalesce(CAST(k."total" AS VARCHAR), 'NULL') || ' ' || 'n=' || coalesce(CAST(k."n" AS VARCHAR), 'NULL') || ' ' || 'checkpoint=' || coalesce(k.__checkpoint, 'NULL') || ' ' || 'emission=' || coalesce(k.__emission, 'NULL') || ' ' || 'at ' || k.__file || ':' || k.__line) AS sink_row,
       (SELECT r.restart FROM restarts AS r WHERE r.restored_checkpoint < (k.__epoch) AND (k.__epoch) <= r.open_epoch ORDER BY r.restart_time LIMIT 1) AS restart
FROM replay_sink AS k
WHERE k.__compared AND k.__watermark < k.__window_end
