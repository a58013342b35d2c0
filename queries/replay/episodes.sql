-- statement: episodes
-- description: The replay episodes of a sink: every key written more than once, each copy after the first an
-- description: entry written again. For a sink of records (.Replay false) the key is the record id (.ID, rows
-- description: whose id is NULL or empty left out, as duplicate_ids does) and the copies are the sink's rows of
-- description: it; for a windowed sink (.Replay true) it is the window and group (.Groups) and the copies are its
-- description: compared rows of table replay_sink (the emission that counts). A key's copies are ordered by
-- description: checkpoint epoch (.Checkpoint read as an integer, as replay_sink's __epoch; none last), then input
-- description: order; each copy after the first is attributed to the restart that rewound the copy before it
-- description: (rules/restart_of.sql: the earlier write was rolled back in the job's state, not in the sink, so
-- description: the replay wrote it again) and counted under the pair of checkpoint ids (the earlier copy's, this
-- description: copy's; 'NULL' for none). An episode is one restart (or none) and checkpoint pair: its keys, its
-- description: copies written again, and per value column (.Values: the measures, or the aggregates) the exact sum
-- description: of those copies — the amount posted twice.
-- returns: restart_no INTEGER (NULL: no restart explains it), restart VARCHAR, from_checkpoint VARCHAR,
-- returns: to_checkpoint VARCHAR, keys BIGINT, copies BIGINT, then one VARCHAR per value column (the exact sum as
-- returns: text, named as the column)
WITH {{if .Replay -}}
repeated AS (
    SELECT k.__window_end{{range .Groups}}, k.{{q .}}{{end}} FROM replay_sink AS k WHERE k.__compared GROUP BY ALL HAVING count(*) > 1
), copies AS (
    SELECT row(k.__window_end{{range .Groups}}, k.{{q .}}{{end}}) AS __key, k.__checkpoint AS __checkpoint, k.__epoch AS __epoch,
           {{range .Values}}k.{{q .}}, {{end}}k.__row
    FROM replay_sink AS k SEMI JOIN repeated AS r ON k.__window_end = r.__window_end AND {{match "k" "r" .Groups}}
    WHERE k.__compared
{{- else -}}
repeated AS (
    SELECT {{cols "k" .ID}} FROM sink AS k WHERE NOT {{nullid "k" .ID}} GROUP BY ALL HAVING count(*) > 1
), copies AS (
    SELECT row({{cols "k" .ID}}) AS __key, {{cpid "k" .Checkpoint}} AS __checkpoint,
           TRY_CAST(trim(CAST(k.{{q .Checkpoint}} AS VARCHAR)) AS BIGINT) AS __epoch,
           {{range .Values}}k.{{q .}}, {{end}}k.__row
    FROM sink AS k SEMI JOIN repeated AS r ON {{match "k" "r" .ID}}
{{- end}}
), ordered AS (
    SELECT c.*, row_number() OVER w AS __copy, lag(c.__checkpoint) OVER w AS __from, lag(c.__epoch) OVER w AS __from_epoch
    FROM copies AS c
    WINDOW w AS (PARTITION BY c.__key ORDER BY c.__epoch NULLS LAST, c.__checkpoint, c.__row)
), again AS (
    SELECT o.*, {{restartof "o.__from_epoch"}} AS __restart FROM ordered AS o WHERE o.__copy > 1
)
SELECT r.restart_no, a.__restart AS restart, coalesce(a.__from, 'NULL') AS from_checkpoint, coalesce(a.__checkpoint, 'NULL') AS to_checkpoint,
       count(DISTINCT a.__key) AS keys, count(*) AS copies{{range .Values}},
       CAST(sum(a.{{q .}}) AS VARCHAR) AS {{q .}}{{end}}
FROM again AS a LEFT JOIN restarts AS r ON r.restart = a.__restart
GROUP BY r.restart_no, a.__restart, a.__from, a.__checkpoint
ORDER BY r.restart_no NULLS LAST, min(a.__from_epoch) NULLS LAST, min(a.__epoch) NULLS LAST, from_checkpoint, to_checkpoint
