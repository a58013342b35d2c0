-- statement: previous_exceptions
-- description: Session table history_previous: every exception key of run .Seq (the previous run of the control)
-- description: in the history database .DB, with the run and time it was first seen and how many runs it has
-- description: been open.
-- returns: table history_previous (check_id VARCHAR, key VARCHAR[], rows BIGINT, first_seen_seq BIGINT,
-- returns: first_seen_run VARCHAR, first_seen_at TIMESTAMP WITH TIME ZONE, open_runs INTEGER)
CREATE OR REPLACE TEMP TABLE history_previous AS
SELECT e.check_id, e.key, e.rows, e.first_seen_seq, f.run_id AS first_seen_run, f.started_at AS first_seen_at, e.open_runs
FROM {{q .DB}}.exceptions AS e
JOIN {{q .DB}}.runs AS f ON f.run_seq = e.first_seen_seq
WHERE e.run_seq = {{.Seq}}
