-- statement: window_verdict
-- description: The verdict on the window and group asked for, by the rules of the replay checks: each aggregate
-- description: compared with its re-performed value as reperformance_mismatches compares it (rules/window_compare,
-- description: window_agrees, window_finding), and the restart that explains the key as the checks attribute it:
-- description: for a key that agrees but was written more than once, the restart that rewound its first write
-- description: (rules/restart_of, as duplicate_keys); for one that disagrees, rules/restart_of_key (as
-- description: reperformance_mismatches). verdict is none (no event, no row), unexpected (rows, no event), missing
-- description: (events, no row), agrees (one row, equal), each_row_right_repeated (every aggregate of every row
-- description: equal, several rows), one_row_inflated / one_row_short (one row, not equal), rows_differ.
-- returns: one row: verdict VARCHAR, compared BIGINT (rows of the emission that counts), all_rows BIGINT, restart VARCHAR
WITH k AS (
    SELECT count(*) FILTER (WHERE k.__compared) AS sink_rows,
           count(*) AS all_rows,
           min(k.__epoch) FILTER (WHERE k.__compared) AS first_checkpoint,
           any_value(k.__window_end) AS window_end{{range .Groups}}, any_value(k.{{q .}}) AS {{q .}}{{end}}
{{- range .Aggregates}},
           list(k.{{q .Column}} ORDER BY k.__row) FILTER (WHERE k.__compared) AS {{name "rows__" .Column}},
           CAST(sum(k.{{q .Column}}) FILTER (WHERE k.__compared) AS {{.Type}}) AS {{name "sum__" .Column}}
{{- end}}
    FROM replay_sink AS k WHERE {{windowkey "k" .Key}}
), e AS (
    SELECT count(*) AS expected_rows{{range .Aggregates}}, any_value(e.{{q .Column}}) AS {{name "expected__" .Column}}{{end}}
    FROM expected AS e WHERE {{windowkey "e" .Key}}
), m AS (
{{- range $i, $a := .Aggregates}}{{if $i}}
    UNION ALL{{end}}
    SELECT k.sink_rows, {{windowcompare (name "rows__" $a.Column) (name "sum__" $a.Column) (name "expected__" $a.Column)}}
    FROM k, e
{{- end}}
), f AS (
    SELECT {{windowagrees}} AS agrees, {{windowfinding}} AS finding FROM m
), v AS (
    SELECT bool_and(agrees) AS agrees, bool_and(finding = 'each_row_right_repeated') AS each_row_right,
           min(finding) FILTER (WHERE NOT agrees) AS finding
    FROM f
)
SELECT CASE WHEN e.expected_rows = 0 AND k.all_rows = 0 THEN 'none'
            WHEN e.expected_rows = 0 THEN 'unexpected'
            WHEN k.all_rows = 0 THEN 'missing'
            WHEN v.agrees AND k.sink_rows = 1 THEN 'agrees'
            WHEN v.each_row_right THEN 'each_row_right_repeated'
            WHEN k.sink_rows > 1 THEN 'rows_differ'
            ELSE v.finding END AS verdict,
       k.sink_rows AS compared, k.all_rows,
       CASE WHEN k.first_checkpoint IS NULL THEN NULL
            WHEN v.agrees AND k.sink_rows > 1 THEN {{restartof "k.first_checkpoint"}}
            WHEN NOT v.agrees THEN {{restartofkey "k.first_checkpoint" "k" .Groups}} END AS restart
FROM k, e, v
