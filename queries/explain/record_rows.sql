-- statement: record_rows
-- description: Every row of table .Table (source or sink) with the record id asked for (record_key), in input
-- description: order, with its location as the checks write it (the loc helper). With .Restarts (the sink of a
-- description: control with a checkpoint column .Checkpoint and restarts:), each row also has its checkpoint epoch
-- description: (the id read as an integer, as replay/episodes.sql reads it) and the restart nearest to it by
-- description: checkpoint, related to it as explain/window_sink_rows.sql relates a windowed sink's row: covered,
-- description: open, rewound or after.
-- returns: the table's columns without __row, then (with .Restarts) __epoch BIGINT, __nearest_restart VARCHAR,
-- returns: __nearest_relation VARCHAR, then __loc VARCHAR (file:line, topic[partition]@offset, or
-- returns: file:line@snapshot)
SELECT t.* EXCLUDE (__row),
{{- if .Restarts}} k.__epoch AS __epoch, n.restart AS __nearest_restart, n.relation AS __nearest_relation,{{end}}
       {{loc "t" .Loc}} AS __loc
FROM {{q .Table}} AS t
{{- if .Restarts}}
CROSS JOIN LATERAL (SELECT TRY_CAST(trim(CAST(t.{{q .Checkpoint}} AS VARCHAR)) AS BIGINT) AS __epoch) AS k
LEFT JOIN LATERAL (
    SELECT r.restart, CASE WHEN k.__epoch <= r.restored_checkpoint THEN 'covered' WHEN k.__epoch = r.open_epoch THEN 'open'
                           WHEN {{rewound "r" "k.__epoch"}} THEN 'rewound' ELSE 'after' END AS relation
    FROM restarts AS r
    WHERE k.__epoch IS NOT NULL AND r.restored_checkpoint IS NOT NULL
    ORDER BY abs(k.__epoch - r.restored_checkpoint), r.restart_no
    LIMIT 1
) AS n ON TRUE
{{- end}}
WHERE {{recordkey "t" .Key .Normalize}} ORDER BY t.__row
