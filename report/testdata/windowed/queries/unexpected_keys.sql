-- check: unexpected_keys
SELECT *
FROM replay_sink
WHERE false -- unexpected_keys
