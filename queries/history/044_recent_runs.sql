-- statement: recent_runs
-- description: The last .Limit runs of control .Control in the history database .DB (all controls when .Control
-- description: is empty and .All is set), oldest first.
-- returns: run_seq BIGINT, run_id VARCHAR, control VARCHAR, started_at VARCHAR (RFC 3339, UTC), finished_at VARCHAR,
-- returns: status VARCHAR, params VARCHAR (JSON), evidence VARCHAR, source_rows BIGINT, sink_rows BIGINT,
-- returns: sink_rows_per_key DOUBLE, restarts INTEGER, manifest_sha256 VARCHAR (of the evidence folder's manifest.json as
-- returns: published)
SELECT * FROM (
    SELECT run_seq, run_id, control, strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at,
           strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished_at, status, params, evidence,
           source_rows, sink_rows, sink_rows_per_key, restarts, manifest_sha256
    FROM {{q .DB}}.runs
    {{if not .All}}WHERE control = {{lit .Control}}{{end}}
    ORDER BY run_seq DESC
    {{if .Limit}}LIMIT {{.Limit}}{{end}}
)
ORDER BY run_seq
