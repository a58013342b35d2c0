-- check: duplicate_keys
SELECT *
FROM replay_sink
WHERE false -- duplicate_keys
