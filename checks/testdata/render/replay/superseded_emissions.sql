-- check: superseded_emissions
-- assertion: accuracy
-- description: For information (emission last_by): earlier emissions of a window and group — early or on-time
-- description: firings later updated by a late firing. Only the last emission is compared with the re-performance.
-- requires: reperform, emission
-- severity: info
-- columns: window_start=window_start, window_end=window_end
SELECT k.__window_start AS window_start, k.__window_end AS window_end, k."region",
       k.__emission AS emission,
       (SELECT max_by(l.__emission, l.__row) FROM replay_sink AS l WHERE l.__compared AND (l.__window_end = k.__window_end AND l."region" IS NOT DISTINCT FROM k."region")) AS last_emission,
       ('total=' || coalesce(CAST(k."total" AS VARCHAR), 'NULL') || ' ' || 'n=' || coalesce(CAST(k."n" AS VARCHAR), 'NULL') || ' ' || 'checkpoint=' || coalesce(k.__checkpoint, 'NULL') || ' ' || 'emission=' || coalesce(k.__emission, 'NULL') || ' ' || 'at ' || k.__file || ':' || k.__line) AS sink_row
FROM replay_sink AS k
WHERE NOT k.__compared
