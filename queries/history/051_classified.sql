-- statement: classified
-- description: Table .Out: every row of exception table .Table with the lifecycle of its key from .Keys appended
-- description: (.Columns: since_last_run, first_seen_run, first_seen_date — the UTC date of that run's start —
-- description: and open_runs), sorted on every column as the exception table is; a row within tolerance, which has
-- description: no key (keys.sql), has no lifecycle (NULLs).
-- returns: table .Out with the columns of .Table, then since_last_run VARCHAR, first_seen_run VARCHAR,
-- returns: first_seen_date DATE, open_runs INTEGER
CREATE OR REPLACE TEMP TABLE {{q .Out}} AS
SELECT e.*, k.since_last_run AS {{q (index .Columns 0)}}, k.first_seen_run AS {{q (index .Columns 1)}},
       CAST(k.first_seen_at AS DATE) AS {{q (index .Columns 2)}}, k.open_runs AS {{q (index .Columns 3)}}
FROM {{q .Table}} AS e
LEFT JOIN {{q .Keys}} AS k
  ON k.key = CAST([{{range $i, $c := .KeyColumns}}{{if $i}}, {{end}}CAST(e.{{q $c}} AS VARCHAR){{end}}] AS VARCHAR[])
ORDER BY ALL
