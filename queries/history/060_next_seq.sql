-- statement: next_seq
-- description: The sequence number of the run being recorded in the history database .DB: one more than the last.
-- returns: one BIGINT
SELECT coalesce(max(run_seq), 0) + 1 FROM {{q .DB}}.runs
