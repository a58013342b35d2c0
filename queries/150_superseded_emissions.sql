-- check: superseded_emissions
-- assertion: accuracy
-- description: For information (emission last_by): earlier emissions of a window and group — early or on-time
-- description: firings later updated by a late firing. Only the last emission is compared with the re-performance.
-- requires: reperform, emission
-- severity: info
-- columns: window_start=window_start, window_end=window_end
SELECT {{replaykey "k" .Replay.GroupBy}},
       k.__emission AS emission,
       (SELECT max_by(l.__emission, l.__row) FROM replay_sink AS l WHERE l.__compared AND {{replaymatch "l" "k" .Replay.GroupBy}}) AS last_emission,
       {{rowtext "k" .Replay}} AS sink_row
FROM replay_sink AS k
WHERE NOT k.__compared
