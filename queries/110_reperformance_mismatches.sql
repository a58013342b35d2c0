-- check: reperformance_mismatches
-- assertion: accuracy
-- description: Windows and groups whose sink value differs from the value re-performed from the source events
-- description: (exact decimal), one row per key and aggregate: the re-performed value against each sink row and
-- description: against the sum of the rows (what a dashboard summing them shows). finding tells
-- description: each_row_right_repeated (every row right, but several) from one_row_inflated / one_row_short and
-- description: rows_differ; restart names the restart that explains it, and events_in_replayed_interval counts the
-- description: key's events between that restart's restored checkpoint and the failure (an incrementing sink counts
-- description: them twice).
-- requires: reperform
-- chart: reperformance
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, aggregate=measure, expected=source, sink_sum=sink,
-- columns: difference=difference, finding=finding, checkpoint_ids=checkpoints, sink_locations=location, restart=restart
-- writes: expression, sink_rows, sink_values, each_row_equals_expected, sum_equals_expected, events_in_replayed_interval
WITH c AS (
    -- The candidate keys first, from a plain count and sum per key: a key of one sink row agrees exactly when its
    -- sum equals the re-performed value (the row is the sum), so only keys of several rows or a differing sum can
    -- disagree, and the ordered lists below are built for their rows only.
    SELECT {{replaygroup "c" .Replay.GroupBy}}, count(*) AS sink_rows
{{- range .Replay.Aggregates}}, CAST(sum(c.{{q .Column}}) AS {{.Type}}) AS {{name "sum__" .Column}}{{end}}
    FROM replay_sink AS c
    WHERE c.__compared
    GROUP BY {{replaygroup "c" .Replay.GroupBy}}
), x AS (
    SELECT c.__window_start, c.__window_end{{range .Replay.GroupBy}}, c.{{q .}}{{end}}
    FROM c JOIN expected AS e ON e.__window_end = c.__window_end{{range .Replay.GroupBy}} AND e.{{q .}} IS NOT DISTINCT FROM c.{{q .}}{{end}}
    WHERE c.sink_rows > 1{{range .Replay.Aggregates}} OR c.{{name "sum__" .Column}} IS DISTINCT FROM e.{{q .Column}}{{end}}
), k AS (
    SELECT {{replaykey "k" .Replay.GroupBy}},
           count(*) AS sink_rows,
           min(k.__epoch) AS first_checkpoint,
           {{sortedlist "k.__checkpoint"}} AS checkpoint_ids,
           string_agg(k.__file || {{locsep $.SinkLocation}} || k.__line, ';' ORDER BY k.__row) AS sink_locations
{{- range .Replay.Aggregates}},
           list(k.{{q .Column}} ORDER BY k.__row) AS {{name "rows__" .Column}},
           CAST(sum(k.{{q .Column}}) AS {{.Type}}) AS {{name "sum__" .Column}}
{{- end}}
    FROM replay_sink AS k
    SEMI JOIN x ON {{replaysame "k" "x" .Replay.GroupBy}}
    WHERE k.__compared
    GROUP BY {{replaygroup "k" .Replay.GroupBy}}
), j AS (
    SELECT k.*, {{range $i, $a := .Replay.Aggregates}}{{if $i}}, {{end}}e.{{q $a.Column}} AS {{name "expected__" $a.Column}}{{end}}
    FROM k JOIN expected AS e ON e.__window_end = k.window_end{{range .Replay.GroupBy}} AND e.{{q .}} IS NOT DISTINCT FROM k.{{q .}}{{end}}
), m AS (
{{- range $i, $a := .Replay.Aggregates}}
{{- if $i}}
    UNION ALL
{{- end}}
    SELECT window_start, window_end{{range $.Replay.GroupBy}}, {{q .}}{{end}},
           {{lit $a.Column}} AS aggregate, {{lit $a.Expr}} AS expression,
           CAST({{name "expected__" $a.Column}} AS VARCHAR) AS expected,
           sink_rows,
           array_to_string(list_transform({{name "rows__" $a.Column}}, x -> coalesce(CAST(x AS VARCHAR), 'NULL')), ';') AS sink_values,
           CAST({{name "sum__" $a.Column}} AS VARCHAR) AS sink_sum,
           CAST(CAST({{name "sum__" $a.Column}} - {{name "expected__" $a.Column}} AS {{$a.Type}}) AS VARCHAR) AS difference,
           {{windowcompare (name "rows__" $a.Column) (name "sum__" $a.Column) (name "expected__" $a.Column)}},
           checkpoint_ids, first_checkpoint, sink_locations
    FROM j
{{- end}}
), a AS (
    {{- /* Without restarts (.Replay.Restarts 0) restart is NULL and events_in_replayed_interval 0, written as
    such: the subqueries would read the events (measured, 10 M events read where they lie: 40 ms). */}}
    SELECT m.*, {{if .Replay.Restarts}}{{restartofkey "m.first_checkpoint" "m" .Replay.GroupBy}}{{else}}CAST(NULL AS VARCHAR){{end}} AS restart
    FROM m
    WHERE NOT {{windowagrees}}
)
SELECT window_start, window_end{{range .Replay.GroupBy}}, {{q .}}{{end}}, aggregate, expression, expected, sink_rows, sink_values, sink_sum, difference,
       each_row_equals_expected, sum_equals_expected,
       {{windowfinding}} AS finding,
       checkpoint_ids, sink_locations, restart,
       {{if .Replay.Restarts}}(SELECT count(*) FROM replay_events AS ev JOIN restarts AS r ON r.restart = a.restart
        WHERE ev.__window_end = a.window_end{{range .Replay.GroupBy}} AND ev.{{q .}} IS NOT DISTINCT FROM a.{{q .}}{{end}}
          AND {{replayed "r" "ev.__event_time"}}){{else}}CAST(0 AS BIGINT){{end}} AS events_in_replayed_interval
FROM a
