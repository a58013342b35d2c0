-- fragment: roll_forward
-- description: The roll-forward of every group of a balance control with an opening (checks.Params .P): per measure
-- description: the opening balance (table opening), the postings (Σ source), expected = opening + postings, the
-- description: closing balance (Σ sink) and difference = closing − expected, exact decimals in the measure's
-- description: arithmetic type; a group absent from an input has 0 there. status: continuing (an opening and a
-- description: closing row), opened (no opening row), closed (no closing row) or postings_only (neither: postings to
-- description: a group with no balance); source_postings counts the source rows. With .Total, the grand total too
-- description: (total true, status NULL). Template helper rollforward.
-- returns: group columns, [total], opening_<m>, postings_<m>, expected_<m>, closing_<m>, difference_<m> per measure,
-- returns: status, source_postings
{{- $p := .P}}{{$total := .Total}}
WITH o AS (
    SELECT {{cols "" $p.GroupBy}}, {{if $total}}grouping({{cols "" $p.GroupBy}}) > 0 AS __total, {{end}}
{{- range $i, $m := $p.Measures}}CAST(coalesce(sum({{q $m}}), 0) AS {{$p.Dec $m}}) AS {{q $m}}, {{end}}count(*) AS __rows
    FROM opening
    {{if $total}}GROUP BY GROUPING SETS (({{cols "" $p.GroupBy}}), ()){{else}}GROUP BY {{cols "" $p.GroupBy}}{{end}}
), s AS (
    SELECT {{cols "" $p.GroupBy}}, {{if $total}}grouping({{cols "" $p.GroupBy}}) > 0 AS __total, {{end}}
{{- range $i, $m := $p.Measures}}CAST(coalesce(sum({{q $m}}), 0) AS {{$p.Dec $m}}) AS {{q $m}}, {{end}}count(*) AS __rows
    FROM source
    {{if $total}}GROUP BY GROUPING SETS (({{cols "" $p.GroupBy}}), ()){{else}}GROUP BY {{cols "" $p.GroupBy}}{{end}}
), k AS (
    SELECT {{cols "" $p.GroupBy}}, {{if $total}}grouping({{cols "" $p.GroupBy}}) > 0 AS __total, {{end}}
{{- range $i, $m := $p.Measures}}CAST(coalesce(sum({{q $m}}), 0) AS {{$p.Dec $m}}) AS {{q $m}}, {{end}}count(*) AS __rows
    FROM sink
    {{if $total}}GROUP BY GROUPING SETS (({{cols "" $p.GroupBy}}), ()){{else}}GROUP BY {{cols "" $p.GroupBy}}{{end}}
), g AS (
    SELECT {{cols "" $p.GroupBy}}{{if $total}}, __total{{end}} FROM o
    UNION SELECT {{cols "" $p.GroupBy}}{{if $total}}, __total{{end}} FROM s
    UNION SELECT {{cols "" $p.GroupBy}}{{if $total}}, __total{{end}} FROM k
)
SELECT {{cols "g" $p.GroupBy}}, {{if $total}}g.__total AS total, {{end}}
{{- range $i, $m := $p.Measures}}
       CAST(coalesce(o.{{q $m}}, 0) AS {{$p.Dec $m}}) AS {{name "opening_" $m}},
       CAST(coalesce(s.{{q $m}}, 0) AS {{$p.Dec $m}}) AS {{name "postings_" $m}},
       CAST(coalesce(o.{{q $m}}, 0) + coalesce(s.{{q $m}}, 0) AS {{$p.Dec $m}}) AS {{name "expected_" $m}},
       CAST(coalesce(k.{{q $m}}, 0) AS {{$p.Dec $m}}) AS {{name "closing_" $m}},
       CAST(coalesce(k.{{q $m}}, 0) - (coalesce(o.{{q $m}}, 0) + coalesce(s.{{q $m}}, 0)) AS {{$p.Dec $m}}) AS {{name "difference_" $m}},
{{- end}}
       CASE {{if $total}}WHEN g.__total THEN NULL {{end}}WHEN o.__rows IS NULL AND k.__rows IS NULL THEN 'postings_only'
            WHEN o.__rows IS NULL THEN 'opened' WHEN k.__rows IS NULL THEN 'closed' ELSE 'continuing' END AS status,
       coalesce(s.__rows, 0) AS source_postings
FROM g
LEFT JOIN o ON {{match "g" "o" $p.GroupBy}}{{if $total}} AND g.__total = o.__total{{end}}
LEFT JOIN s ON {{match "g" "s" $p.GroupBy}}{{if $total}} AND g.__total = s.__total{{end}}
LEFT JOIN k ON {{match "g" "k" $p.GroupBy}}{{if $total}} AND g.__total = k.__total{{end}}
