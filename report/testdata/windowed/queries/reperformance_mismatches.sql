-- check: reperformance_mismatches
SELECT *
FROM replay_sink
WHERE false -- reperformance_mismatches
