-- check: value_mismatches
-- assertion: accuracy
-- description: Matched source and sink rows whose values differ in a compared column (typed equality: text byte
-- description: for byte, numbers by exact value, timestamps as instants, intervals field by field (months, days,
-- description: microseconds); NULL differs from any value), one row per row pair and differing column: the column,
-- description: both values as text (a measure at its exact scale), the difference (exact for numbers, an interval
-- description: for timestamps) and, where a tolerance is declared, the tolerance and whether the difference is within
-- description: it (such rows are listed but are not exceptions). An id on one row of each input is that row pair. The
-- description: copies of an id on more than one row of either input are paired first, never each with every other:
-- description: a source copy and a sink copy whose compared values are all equal pair off (the n-th such source copy
-- description: in input order with the n-th such sink copy) and are no mismatch; the copies left are paired in the
-- description: order of their compared values (the compared columns in order, NULL last), ties in input order (file,
-- description: then line), the n-th of the source with the n-th of the sink; a copy left over on one side, the other
-- description: having fewer, is paired with every copy of the id on the other side when it equals none of them (and
-- description: is no mismatch when it equals one: duplicate_ids reports the repetition either way).
-- requires: id, compare
-- notes: partial_null_ids
-- tolerance: compare
-- columns: column=column, difference=difference, tolerance=tolerance, within_tolerance=within_tolerance,
-- columns: source_location=location, sink_location=location
-- writes: source_value, sink_value
WITH repeated AS (
    -- The ids on more than one row of either input and on a row of each: their copies are paired below.
{{- if .IDCounts}}
    SELECT {{cols "x" .ID}}, TRUE AS __copy_repeated
    FROM id_counts AS x
    WHERE (x.__source_rows > 1 OR x.__sink_rows > 1) AND x.__source_rows > 0 AND x.__sink_rows > 0 AND NOT {{nullid "x" .ID}}
{{- else}}
    SELECT {{cols "" .ID}}, TRUE AS __copy_repeated
    FROM (SELECT {{cols "s" .ID}}, 0 AS __side FROM source AS s UNION ALL SELECT {{cols "k" .ID}}, 1 FROM sink AS k) AS x
    WHERE NOT {{nullid "x" .ID}}
    GROUP BY {{cols "" .ID}}
    HAVING count(*) FILTER (WHERE __side = 0) > 0 AND count(*) FILTER (WHERE __side = 1) > 0 AND count(*) > 2
{{- end}}
), source_copies AS (
    -- Each copy of a repeated id, with its compared values as one key, numbered among the copies of its id with
    -- that key in input order.
    SELECT c.*, row_number() OVER (PARTITION BY {{cols "c" .ID}}, c.__copy_key ORDER BY c.__row) AS __copy_same
    FROM (SELECT {{cols "s" .ID}}, s.__row,
                 row({{range $i, $c := .Compared}}{{if $i}}, {{end}}{{cmpvalue "s" "source" $c}}{{end}}) AS __copy_key
          FROM source AS s SEMI JOIN repeated AS r ON {{match "s" "r" .ID}}) AS c
), sink_copies AS (
    SELECT c.*, row_number() OVER (PARTITION BY {{cols "c" .ID}}, c.__copy_key ORDER BY c.__row) AS __copy_same
    FROM (SELECT {{cols "k" .ID}}, k.__row,
                 row({{range $i, $c := .Compared}}{{if $i}}, {{end}}{{cmpvalue "k" "sink" $c}}{{end}}) AS __copy_key
          FROM sink AS k SEMI JOIN repeated AS r ON {{match "k" "r" .ID}}) AS c
), source_left AS (
    -- The copies no equal copy of the other input pairs off with, numbered in the order of their compared
    -- values, then of input.
    SELECT a.*, row_number() OVER (PARTITION BY {{cols "a" .ID}} ORDER BY a.__copy_key, a.__row) AS __copy_left
    FROM source_copies AS a
    ANTI JOIN sink_copies AS b ON {{match "a" "b" .ID}} AND a.__copy_key IS NOT DISTINCT FROM b.__copy_key AND a.__copy_same = b.__copy_same
), sink_left AS (
    SELECT b.*, row_number() OVER (PARTITION BY {{cols "b" .ID}} ORDER BY b.__copy_key, b.__row) AS __copy_left
    FROM sink_copies AS b
    ANTI JOIN source_copies AS a ON {{match "a" "b" .ID}} AND a.__copy_key IS NOT DISTINCT FROM b.__copy_key AND a.__copy_same = b.__copy_same
), paired AS (
    -- The n-th source copy left with the n-th sink copy left.
    SELECT a.__row AS __source_row, b.__row AS __sink_row, TRUE AS __copy_paired
    FROM source_left AS a JOIN sink_left AS b ON {{match "a" "b" .ID}} AND a.__copy_left = b.__copy_left
    UNION ALL
    -- A source copy left over (the sink has fewer left) with every sink copy, when it equals none of them.
    SELECT a.__row, b.__row, TRUE
    FROM source_left AS a JOIN sink_copies AS b ON {{match "a" "b" .ID}}
    WHERE NOT EXISTS (SELECT 1 FROM sink_left AS x WHERE {{match "x" "a" .ID}} AND x.__copy_left = a.__copy_left)
      AND NOT EXISTS (SELECT 1 FROM sink_copies AS x WHERE {{match "x" "a" .ID}} AND x.__copy_key IS NOT DISTINCT FROM a.__copy_key)
    UNION ALL
    -- A sink copy left over (the source has fewer left) with every source copy, when it equals none of them.
    SELECT a.__row, b.__row, TRUE
    FROM sink_left AS b JOIN source_copies AS a ON {{match "a" "b" .ID}}
    WHERE NOT EXISTS (SELECT 1 FROM source_left AS x WHERE {{match "x" "b" .ID}} AND x.__copy_left = b.__copy_left)
      AND NOT EXISTS (SELECT 1 FROM source_copies AS x WHERE {{match "x" "b" .ID}} AND x.__copy_key IS NOT DISTINCT FROM b.__copy_key)
), pairs AS (
    -- Each matched pair with some difference, once; its compared columns as a list. A pair of a repeated id
    -- only when paired above.
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
    LEFT JOIN repeated AS r ON {{match "s" "r" .ID}}
    LEFT JOIN paired AS pp ON pp.__source_row = s.__row AND pp.__sink_row = k.__row
    WHERE NOT {{nullid "s" .ID}}
      AND (r.__copy_repeated IS NULL OR pp.__copy_paired)
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
