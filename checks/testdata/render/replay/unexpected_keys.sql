-- check: unexpected_keys
-- assertion: accuracy
-- description: Sink windows and groups with no source event behind them, with their rows; on_window_grid is false when
-- description: the window does not even start on the window assigner's grid (wrong size or offset).
-- requires: reperform
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, checkpoint_ids=checkpoints
-- writes: row_count, on_window_grid, sink_rows
SELECT k.__window_start AS window_start, k.__window_end AS window_end, k."region",
       count(*) AS row_count,
       bool_and((epoch_us(k.__window_start) - 0) % 300000000 = 0) AS on_window_grid,
       array_to_string(list(DISTINCT CAST(k.__checkpoint AS VARCHAR) ORDER BY TRY_CAST(CAST(k.__checkpoint AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(k.__checkpoint AS VARCHAR)), ';') AS checkpoint_ids,
       string_agg(('total=' || coalesce(CAST(k."total" AS VARCHAR), 'NULL') || ' ' || 'n=' || coalesce(CAST(k."n" AS VARCHAR), 'NULL') || ' ' || 'checkpoint=' || coalesce(k.__checkpoint, 'NULL') || ' ' || 'emission=' || coalesce(k.__emission, 'NULL') || ' ' || 'at ' || k.__file || ':' || k.__line), '; ' ORDER BY k.__row) AS sink_rows
FROM replay_sink AS k
WHERE NOT EXISTS (SELECT 1 FROM expected AS e WHERE (k.__window_end = e.__window_end AND k."region" IS NOT DISTINCT FROM e."region"))
GROUP BY k.__window_start, k.__window_end, k."region"
