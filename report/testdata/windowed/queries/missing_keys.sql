-- check: missing_keys
SELECT *
FROM replay_sink
WHERE false -- missing_keys
