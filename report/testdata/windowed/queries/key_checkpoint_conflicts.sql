-- check: key_checkpoint_conflicts
SELECT *
FROM replay_sink
WHERE false -- key_checkpoint_conflicts
