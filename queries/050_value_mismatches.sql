-- check: value_mismatches
-- assertion: accuracy
-- description: Matched source and sink rows whose values differ in a compared column (typed equality: text byte
-- description: for byte, numbers by exact value, timestamps as instants, intervals field by field (months, days,
-- description: microseconds); NULL differs from any value), one row per
-- description: row pair and differing column: the column, both values as text (a measure at its exact scale), the
-- description: difference (exact for numbers, an interval for timestamps) and, where a tolerance is declared, the
-- description: tolerance and whether the difference is within it (such rows are listed but are not exceptions).
-- requires: id, compare
-- notes: partial_null_ids
-- tolerance: compare
-- columns: column=column, difference=difference, tolerance=tolerance, within_tolerance=within_tolerance,
-- columns: source_location=location, sink_location=location
-- writes: source_value, sink_value
WITH pairs AS (
    -- Each matched pair with some difference, once; its compared columns as a list.
    SELECT {{cols "s" .ID}},
           [{{range $i, $c := .Compared}}{{if $i}},
            {{end}}{'column': {{lit $c.Name}}, 'differs': {{cmpdiffers "s" "k" $c}},
             'source_value': CAST(s.{{q $c.Name}} AS VARCHAR), 'sink_value': CAST(k.{{q $c.Name}} AS VARCHAR),
             'difference': {{cmpdifference "s" "k" $c}},
             'tolerance': {{if $c.Tol}}{{lit $c.Tol.Text}}{{else}}CAST(NULL AS VARCHAR){{end}}, 'within_tolerance': {{cmpwithin "s" "k" $c}}}
{{- end}}] AS __compared,
           {{loc "s" $.SourceLocation}} AS source_location,
           {{loc "k" $.SinkLocation}} AS sink_location
    FROM source AS s
    JOIN sink AS k ON {{match "s" "k" .ID}}
    WHERE NOT {{nullid "s" .ID}}
      AND ({{range $i, $c := .Compared}}{{if $i}}
           OR {{end}}{{cmpdiffers "s" "k" $c}}{{end}})
)
SELECT {{cols "p" .ID}},
       p.__c."column" AS "column",
       p.__c.source_value AS source_value,
       p.__c.sink_value AS sink_value,
       p.__c.difference AS difference,
{{- if .HasTolerance}}
       p.__c.tolerance AS tolerance,
       coalesce(p.__c.within_tolerance, FALSE) AS within_tolerance,
{{- end}}
       p.source_location,
       p.sink_location
FROM (SELECT pairs.*, unnest(pairs.__compared) AS __c FROM pairs) AS p
WHERE p.__c.differs
