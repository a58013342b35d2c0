-- check: normalized_matches
-- assertion: accuracy
-- description: Matched source and sink rows whose values differ as written but are equal once normalised
-- description: (normalize:): an id matched only after normalising (column is the id column) and a compared column
-- description: equal only once normalised — every match that needed normalising, counted and listed with both values
-- description: as written and the normalised one, so that nothing is merged silently. collision is true when the
-- description: normalised value stands for more than one value as written within the source or within the sink (A1
-- description: and "A1 " both trimmed to A1): for an id or group column each such value is an exception of
-- description: normalized_collisions.
-- requires: id, normalize
-- severity: info
-- notes: partial_null_ids
-- columns: column=column, source_location=location, sink_location=location
-- writes: source_value, sink_value, normalized_value, collision
{{- $ids := .NormalizedID}}
{{- $keyed := false}}{{range .Normalized}}{{if .Keyed}}{{$keyed = true}}{{end}}{{end}}
WITH
{{- if .Normalized}}
spellings AS (
    -- Normalised values written more than one way within one input.
{{- range $i, $c := .Normalized}}{{if $i}}
    UNION ALL{{end}}
{{- if $c.Keyed}}
    -- A group column normalised in place: its values as written are those
    -- of key_spellings where it has the row.
    SELECT {{lit $c.Name}} AS "column", CAST(s.{{q $c.Name}} AS VARCHAR) AS normalized
    FROM source AS s LEFT JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    GROUP BY 2
    HAVING count(DISTINCT {{written "s" "__w" $c.Name}}) > 1
    UNION ALL
    SELECT {{lit $c.Name}}, CAST(k.{{q $c.Name}} AS VARCHAR)
    FROM sink AS k LEFT JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
    GROUP BY 2
    HAVING count(DISTINCT {{written "k" "__w" $c.Name}}) > 1
{{- else}}
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
{{- end}}
), pairs AS (
    SELECT {{cols "s" .ID}},
           [{{range $i, $c := .Normalized}}{{if $i}},
            {{end}}
{{- if $c.Keyed}}{'column': {{lit $c.Name}},
             'needed': ({{written "s" "__ws" $c.Name}} IS DISTINCT FROM {{written "k" "__wk" $c.Name}} AND NOT {{cmpdiffers "s" "k" $c}}),
             'source_value': {{written "s" "__ws" $c.Name}}, 'sink_value': {{written "k" "__wk" $c.Name}},
             'normalized': {{cmpvalue "s" "source" $c}}}
{{- else}}{'column': {{lit $c.Name}},
             'needed': ({{cmpraw "s" "source" $c}} IS DISTINCT FROM {{cmpraw "k" "sink" $c}} AND NOT {{cmpdiffers "s" "k" $c}}),
             'source_value': CAST(s.{{q $c.Name}} AS VARCHAR), 'sink_value': CAST(k.{{q $c.Name}} AS VARCHAR),
             'normalized': {{cmpvalue "s" "source" $c}}}
{{- end}}
{{- end}}] AS __compared,
           {{loc "s" $.SourceLocation}} AS source_location,
           {{loc "k" $.SinkLocation}} AS sink_location
    FROM source AS s
    JOIN sink AS k ON {{match "s" "k" .ID}}
{{- if $keyed}}
    LEFT JOIN key_spellings AS __ws ON __ws.__side = 'source' AND __ws.__row = s.__row
    LEFT JOIN key_spellings AS __wk ON __wk.__side = 'sink' AND __wk.__row = k.__row
{{- end}}
    WHERE NOT {{nullid "s" .ID}}
      AND ({{range $i, $c := .Normalized}}{{if $i}}
           OR {{end}}
{{- if $c.Keyed}}({{written "s" "__ws" $c.Name}} IS DISTINCT FROM {{written "k" "__wk" $c.Name}} AND NOT {{cmpdiffers "s" "k" $c}})
{{- else}}({{cmpraw "s" "source" $c}} IS DISTINCT FROM {{cmpraw "k" "sink" $c}} AND NOT {{cmpdiffers "s" "k" $c}})
{{- end}}{{end}})
){{if $ids}},{{end}}
{{- end}}
{{- if $ids}}
id_changed AS (
    -- The normalised ids of the rows whose id is written otherwise: only
    -- these can have been matched by normalising.
    SELECT {{cols "s" .ID}} FROM source AS s JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    UNION
    SELECT {{cols "k" .ID}} FROM sink AS k JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
), id_collisions AS (
    -- Those written more than one way within one input (the exceptions of
    -- normalized_collisions).
    SELECT {{cols "s" .ID}}
    FROM source AS s
    SEMI JOIN id_changed AS __x ON {{match "s" "__x" .ID}}
    LEFT JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    GROUP BY {{cols "s" .ID}}
    HAVING count(DISTINCT {{spelling "s" "__w" $ids}}) > 1
    UNION
    SELECT {{cols "k" .ID}}
    FROM sink AS k
    SEMI JOIN id_changed AS __x ON {{match "k" "__x" .ID}}
    LEFT JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
    GROUP BY {{cols "k" .ID}}
    HAVING count(DISTINCT {{spelling "k" "__w" $ids}}) > 1
), id_pairs AS (
    SELECT {{cols "s" .ID}},
           [{{range $i, $c := $ids}}{{if $i}},
            {{end}}{'column': {{lit $c}}, 'source_value': {{written "s" "__ws" $c}}, 'sink_value': {{written "k" "__wk" $c}},
             'normalized': CAST(s.{{q $c}} AS VARCHAR)}
{{- end}}] AS __ids,
           {{loc "s" $.SourceLocation}} AS source_location,
           {{loc "k" $.SinkLocation}} AS sink_location
    FROM source AS s
    SEMI JOIN id_changed AS __x ON {{match "s" "__x" .ID}}
    JOIN sink AS k ON {{match "s" "k" .ID}}
    LEFT JOIN key_spellings AS __ws ON __ws.__side = 'source' AND __ws.__row = s.__row
    LEFT JOIN key_spellings AS __wk ON __wk.__side = 'sink' AND __wk.__row = k.__row
    WHERE NOT {{nullid "s" .ID}}
)
{{- end}}
{{- if .Normalized}}
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
{{- end}}
{{- if and .Normalized $ids}}
UNION ALL
{{- end}}
{{- if $ids}}
SELECT {{cols "p" .ID}},
       p.__c."column" AS "column",
       p.__c.source_value AS source_value,
       p.__c.sink_value AS sink_value,
       p.__c.normalized AS normalized_value,
       EXISTS (SELECT 1 FROM id_collisions AS __y WHERE {{match "__y" "p" .ID}}) AS collision,
       p.source_location,
       p.sink_location
FROM (SELECT id_pairs.*, unnest(id_pairs.__ids) AS __c FROM id_pairs) AS p
WHERE p.__c.source_value IS DISTINCT FROM p.__c.sink_value
{{- end}}
