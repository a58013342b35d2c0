-- statement: run_recorded
-- description: Whether run .RunID is recorded in the history database .DB (a run whose publishing mark is found:
-- description: history.FindUnrecorded).
-- returns: one BIGINT: 1 when it is, 0 otherwise
SELECT count(*) FROM {{q .DB}}.runs WHERE run_id = {{lit .RunID}}
