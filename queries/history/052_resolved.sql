-- statement: resolved
-- description: Table .Out: the keys of check .Check in history_previous that are not in .Keys — exceptions of the
-- description: previous run (.PreviousRunID) that this run no longer finds — one column per key column
-- description: (.KeyColumns, as text), then when each was first seen, how many runs it was open and the last run
-- description: that had it; sorted on every column.
-- description: With .Matched (a check of matched ids: its id columns and their 1-based places in the key), only the
-- description: keys whose id is in both the source and the sink now: a value that differed on an id missing from
-- description: the sink now is not resolved, it is no longer looked at (missing_ids has the id).
-- returns: table .Out (the key columns VARCHAR, first_seen_run VARCHAR, first_seen_date DATE, open_runs INTEGER,
-- returns: last_seen_run VARCHAR)
CREATE OR REPLACE TEMP TABLE {{q .Out}} AS
SELECT DISTINCT {{range $i, $c := .KeyColumns}}p.key[{{inc $i}}] AS {{q $c}}, {{end}}
       p.first_seen_run AS {{q (index .Columns 0)}}, CAST(p.first_seen_at AS DATE) AS {{q (index .Columns 1)}},
       p.open_runs AS {{q (index .Columns 2)}}, {{lit .PreviousRunID}} AS {{q (index .Columns 3)}}
FROM history_previous AS p
WHERE p.check_id = {{lit .Check}} AND NOT EXISTS (SELECT 1 FROM {{q .Keys}} AS k WHERE k.key = p.key)
{{- if .Matched}}
  AND EXISTS (SELECT 1 FROM source AS i WHERE {{range $j, $m := .Matched}}{{if $j}} AND {{end}}CAST(i.{{q $m.Column}} AS VARCHAR) IS NOT DISTINCT FROM p.key[{{$m.Index}}]{{end}})
  AND EXISTS (SELECT 1 FROM sink AS i WHERE {{range $j, $m := .Matched}}{{if $j}} AND {{end}}CAST(i.{{q $m.Column}} AS VARCHAR) IS NOT DISTINCT FROM p.key[{{$m.Index}}]{{end}})
{{- end}}
ORDER BY ALL
