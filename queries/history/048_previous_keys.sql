-- statement: previous_keys
-- description: How many exception keys of check .Check history_previous (previous_exceptions) holds: the previous
-- description: run's new and recurring keys of the check, unless the history lost some (a run stopped while its
-- description: recording was being made durable).
-- returns: one BIGINT
SELECT count(*) FROM history_previous WHERE check_id = {{lit .Check}}
