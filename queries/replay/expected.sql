-- statement: expected
-- description: Table expected: every window and group recomputed from the events of replay_events, each
-- description: aggregate cast to its exact type (DECIMAL(38,s), s the larger scale of the source and the sink
-- description: column), with the number of events and the first source row (for the evidence).
-- returns: table expected (__window_start, __window_end, <group columns>, <one column per aggregate, named as the
-- returns: sink column>, __events BIGINT, __first_row BIGINT)
CREATE OR REPLACE TABLE {{q .Table}} AS
SELECT __window_start, __window_end{{range .Groups}}, {{q .}}{{end}}, {{range $i, $a := .Aggregates}}{{if $i}}, {{end -}}
CAST({{if eq $a.Agg.Arg "*"}}count(*){{else if and (eq $a.Agg.Func "count") $a.Agg.Distinct}}count(DISTINCT {{q $a.Agg.Arg}}){{else}}{{$a.Agg.Func}}({{q $a.Agg.Arg}}){{end}} AS {{$a.Type}}) AS {{q $a.Column}}
{{- end}}, count(*) AS __events, min(__row) AS __first_row
FROM {{q .Events}} GROUP BY __window_start, __window_end{{range .Groups}}, {{q .}}{{end}}
