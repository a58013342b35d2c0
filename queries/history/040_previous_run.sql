-- statement: previous_run
-- description: The last run of control .Control recorded in the history database .DB: the run its exceptions are
-- description: classified against.
-- returns: run_seq BIGINT, run_id VARCHAR, started_at VARCHAR (RFC 3339, UTC), status VARCHAR, params VARCHAR (JSON);
-- returns: no row for a control's first run
SELECT run_seq, run_id, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at, status, params
FROM {{q .DB}}.runs
WHERE control = {{lit .Control}}
ORDER BY run_seq DESC
LIMIT 1
