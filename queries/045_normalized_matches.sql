-- check: normalized_matches
-- assertion: accuracy
-- description: Matched source and sink rows whose values in a column with normalize: differ as written but are
-- description: equal once normalised: every match that needed normalising, counted and listed so that nothing is
-- description: merged silently. collision is true when the normalised value stands for more than one value as
-- description: written within the source or within the sink (A1 and "A1 " both trimmed to A1).
-- requires: id, normalize
-- severity: info
-- notes: partial_null_ids
-- columns: column=column, source_location=location, sink_location=location
-- writes: source_value, sink_value, normalized_value, collision
WITH spellings AS (
    -- Normalised values written more than one way within one input.
{{- range $i, $c := .Normalized}}{{if $i}}
    UNION ALL{{end}}
    SELECT {{lit $c.Name}} AS "column", {{cmpvalue "s" "source" $c}} AS normalized
    FROM source AS s
    GROUP BY 2
    HAVING count(DISTINCT {{cmpraw "s" "source" $c}}) > 1
    UNION ALL
    SELECT {{lit $c.Name}}, {{cmpvalue "k" "sink" $c}}
    FROM sink AS k
    GROUP BY 2
    HAVING count(DISTINCT {{cmpraw "k" "sink" $c}}) > 1
{{- end}}
), pairs AS (
    SELECT {{cols "s" .ID}},
           [{{range $i, $c := .Normalized}}{{if $i}},
            {{end}}{'column': {{lit $c.Name}},
             'needed': ({{cmpraw "s" "source" $c}} IS DISTINCT FROM {{cmpraw "k" "sink" $c}} AND NOT {{cmpdiffers "s" "k" $c}}),
             'source_value': CAST(s.{{q $c.Name}} AS VARCHAR), 'sink_value': CAST(k.{{q $c.Name}} AS VARCHAR),
             'normalized': {{cmpvalue "s" "source" $c}}}
{{- end}}] AS __compared,
           {{loc "s" $.SourceLocation}} AS source_location,
           {{loc "k" $.SinkLocation}} AS sink_location
    FROM source AS s
    JOIN sink AS k ON {{match "s" "k" .ID}}
    WHERE NOT {{nullid "s" .ID}}
      AND ({{range $i, $c := .Normalized}}{{if $i}}
           OR {{end}}({{cmpraw "s" "source" $c}} IS DISTINCT FROM {{cmpraw "k" "sink" $c}} AND NOT {{cmpdiffers "s" "k" $c}}){{end}})
)
SELECT {{cols "p" .ID}},
       p.__c."column" AS "column",
       p.__c.source_value AS source_value,
       p.__c.sink_value AS sink_value,
       p.__c.normalized AS normalized_value,
       EXISTS (SELECT 1 FROM spellings AS sp WHERE sp."column" = p.__c."column" AND sp.normalized = p.__c.normalized) AS collision,
       p.source_location,
       p.sink_location
FROM (SELECT pairs.*, unnest(pairs.__compared) AS __c FROM pairs) AS p
WHERE p.__c.needed
