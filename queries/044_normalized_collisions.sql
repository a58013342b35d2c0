-- check: normalized_collisions
-- assertion: accuracy
-- description: Ids, and groups, that normalize: makes one within one input although that input writes them in more
-- description: than one way ("A1" and "a1" with casefold, "0042" and "042" with strip_leading_zeros). Every check
-- description: matches and groups by the normalised value, so their rows would count as copies of one record, or as
-- description: one group, without a word: each such normalised id or group is an exception, never a silent merge.
-- description: One row per normalised id (keyed_by id) or group (keyed_by group_by) and input (side), with its
-- description: spellings as written (a JSON list, sorted), the input's rows that have it (row_count) and the first
-- description: location of each spelling, in the order of spellings. A NULL or empty id is null_ids's, not listed here.
-- requires: normalize_keys
-- columns: locations=location
-- writes: keyed_by, side, spellings, row_count
{{- $out := .CollisionColumns}}
WITH
{{- range $i, $k := .CollisionKeys}}{{if $i}},{{end}}
{{$k.KeyedBy}}_changed AS (
    -- The normalised values of the rows written otherwise, per input: only
    -- these can be written more than one way.
    SELECT DISTINCT 'source' AS __side, {{cols "s" $k.Columns}}
    FROM source AS s JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    UNION ALL
    SELECT DISTINCT 'sink', {{cols "k" $k.Columns}}
    FROM sink AS k JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
), {{$k.KeyedBy}}_spelled AS (
    -- Each way one of them is written in its input: the rows and the first.
    SELECT {{cols "s" $k.Columns}}, 'source' AS __side, {{spelling "s" "__w" $k.Normalized}} AS __spelling,
           count(*) AS __rows, arg_min({{loc "s" $.SourceLocation}}, s.__row) AS __location
    FROM source AS s
    SEMI JOIN (SELECT * FROM {{$k.KeyedBy}}_changed WHERE __side = 'source') AS __c ON {{match "s" "__c" $k.Columns}}
    LEFT JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
{{- if eq $k.KeyedBy "id"}}
    WHERE NOT {{nullid "s" $k.Columns}}
{{- end}}
    GROUP BY ALL
    UNION ALL
    SELECT {{cols "k" $k.Columns}}, 'sink', {{spelling "k" "__w" $k.Normalized}},
           count(*), arg_min({{loc "k" $.SinkLocation}}, k.__row)
    FROM sink AS k
    SEMI JOIN (SELECT * FROM {{$k.KeyedBy}}_changed WHERE __side = 'sink') AS __c ON {{match "k" "__c" $k.Columns}}
    LEFT JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
{{- if eq $k.KeyedBy "id"}}
    WHERE NOT {{nullid "k" $k.Columns}}
{{- end}}
    GROUP BY ALL
), {{$k.KeyedBy}}_collisions AS (
    SELECT {{cols "x" $k.Columns}}, x.__side,
           to_json(list(x.__spelling ORDER BY x.__spelling)) AS __spellings,
           CAST(sum(x.__rows) AS BIGINT) AS __row_count,
           string_agg(x.__location, ';' ORDER BY x.__spelling) AS __locations
    FROM {{$k.KeyedBy}}_spelled AS x
    GROUP BY {{cols "x" $k.Columns}}, x.__side
    HAVING count(*) > 1
)
{{- end}}
{{- range $i, $k := .CollisionKeys}}{{if $i}}
UNION ALL{{end}}
SELECT {{range $out}}{{if has $k.Columns .}}c.{{q .}}{{else}}NULL AS {{q .}}{{end}}, {{end}}{{lit $k.KeyedBy}} AS keyed_by, c.__side AS side, CAST(c.__spellings AS VARCHAR) AS spellings,
       c.__row_count AS row_count, c.__locations AS locations
FROM {{$k.KeyedBy}}_collisions AS c
{{- end}}
