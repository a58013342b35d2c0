-- statement: repeated_params
-- description: The latest run of control .Control in the history database .DB, before run .Seq (the last one
-- description: recorded), whose parameters are .Params (the JSON text Record writes: keys sorted) — a period run
-- description: again after later ones, a backfill — with its start (RFC 3339, UTC); no row when there is none.
-- returns: run_id VARCHAR, started_at VARCHAR
SELECT run_id, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ')
FROM {{q .DB}}.runs
WHERE control = {{lit .Control}} AND params = {{lit .Params}} AND run_seq < {{.Seq}}
ORDER BY run_seq DESC
LIMIT 1
