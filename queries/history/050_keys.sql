-- statement: keys
-- description: Session table .Keys: the distinct keys of check .Check's exception table .Table — the values of its
-- description: key columns .KeyColumns as text (NULL stays NULL), in order — with their row count, classified
-- description: against history_previous: recurring when the previous run had the key (keeping the run and time it
-- description: was first seen, one more open run), else new (first seen in this run, .RunID started .StartedAt).
-- description: With .Compared false every key is new. A row whose .Within column (the check's column of role
-- description: within_tolerance, when it has one) is true is listed with the exceptions but is none: it has no key.
-- returns: table .Keys (key VARCHAR[], rows BIGINT, since_last_run VARCHAR, first_seen_seq BIGINT (NULL: this
-- returns: run), first_seen_run VARCHAR, first_seen_at TIMESTAMP WITH TIME ZONE, open_runs INTEGER)
CREATE OR REPLACE TEMP TABLE {{q .Keys}} AS
WITH current AS (
    SELECT CAST([{{range $i, $c := .KeyColumns}}{{if $i}}, {{end}}CAST({{q $c}} AS VARCHAR){{end}}] AS VARCHAR[]) AS key,
           count(*) AS rows
    FROM {{q .Table}}
    {{- if .Within}}
    WHERE NOT coalesce({{q .Within}}, false)
    {{- end}}
    GROUP BY 1
)
SELECT c.key, c.rows,
       CASE WHEN p.key IS NULL THEN {{lit .New}} ELSE {{lit .Recurring}} END AS since_last_run,
       p.first_seen_seq,
       coalesce(p.first_seen_run, {{lit .RunID}}) AS first_seen_run,
       coalesce(p.first_seen_at, CAST({{lit .StartedAt}} AS TIMESTAMP WITH TIME ZONE)) AS first_seen_at,
       CAST(coalesce(p.open_runs, 0) + 1 AS INTEGER) AS open_runs
FROM current AS c
LEFT JOIN (SELECT DISTINCT key, first_seen_seq, first_seen_run, first_seen_at, open_runs
           FROM history_previous WHERE check_id = {{lit .Check}}) AS p
       ON {{if .Compared}}p.key = c.key{{else}}false{{end}}
