-- statement: attribution
-- description: The replay findings (the exception tables of the checks with "-- finding: replay", .Findings)
-- description: attributed to restarts: each row's restart column when the check has one (role restart), else the
-- description: restart that rewound the first of its checkpoint ids (role checkpoints; rules/restart_of.sql), else
-- description: none. A finding's key is its window end (role window_end) and group columns (role group), so
-- description: findings of several checks about one window count as one key.
-- returns: restart VARCHAR (NULL: no restart explains it), check_id VARCHAR, findings BIGINT, keys BIGINT (distinct
-- returns: keys among the findings of that restart, all checks together)
WITH f AS (
{{- range $i, $f := .Findings}}{{if $i}}
    UNION ALL{{end}}
    SELECT {{lit $f.Check}} AS check_id,
           {{if $f.Restart}}CAST({{q $f.Restart}} AS VARCHAR)
           {{- else if $f.Checkpoints}}{{restartof (printf "list_min(list_transform(string_split(CAST(%s AS VARCHAR), ';'), x -> TRY_CAST(x AS BIGINT)))" (q $f.Checkpoints))}}
           {{- else}}CAST(NULL AS VARCHAR){{end}} AS restart,
           {{if $f.WindowEnd}}CAST({{q $f.WindowEnd}} AS VARCHAR){{range $f.Groups}} || '|' || coalesce(CAST({{q .}} AS VARCHAR), '∅'){{end}}
           {{- else}}CAST(NULL AS VARCHAR){{end}} AS key
    FROM {{q $f.Table}}
{{- end}}
)
SELECT restart, check_id, count(*) AS findings,
       (SELECT count(DISTINCT g.key) FROM f AS g WHERE g.restart IS NOT DISTINCT FROM f.restart) AS keys
FROM f GROUP BY restart, check_id ORDER BY restart, check_id
