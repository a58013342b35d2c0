-- statement: value_mismatches
-- description: Check value_mismatches (queries/050_value_mismatches.sql) in Trino's dialect, without tolerance: and
-- description: normalize: (refused on Trino): one row per matched row pair and differing compared column, the copies
-- description: of an id on more than one row of either input paired by the DuckDB file's rule. Trino inlines every
-- description: reference to a WITH query, so each one here is read once: the ids on more than one row of either input
-- description: and on a row of each, with their rows in each input (a narrow aggregation of the ids); one join of the
-- description: inputs' rows, as a hand-written check joins, whose pairs that differ or are of such an id are split
-- description: into their two rows (a row of a repeated id is in as many pairs as the other input has rows of it, so
-- description: its copies are counted back from the pairs). The copies are numbered (__n: in the order of their
-- description: location, then of their compared values, where DuckDB uses the input row; rows equal in both give the
-- description: same rows), those with an equal copy in the other input (the same values, the same ordinal among them:
-- description: __copy_same against the other input's count of them) pair off, and the copies left (__left) are paired
-- description: as DuckDB pairs them.
-- returns: the id columns, column, source_value, sink_value, difference, source_location, sink_location
WITH repeated_ids AS (
    -- The ids on more than one row of either input and on a row of each, with their rows in each input: a narrow
    -- hash aggregation of the ids alone, few rows out.
    SELECT {{$.MatchKeys "x" .ID}}, sum(1 - x.__side) AS __ns, sum(x.__side) AS __nk
    FROM (SELECT {{cols "s" .ID}}, 0 AS __side FROM source AS s WHERE NOT {{nullid "s" .ID}}
          UNION ALL
          SELECT {{cols "k" .ID}}, 1 FROM sink AS k WHERE NOT {{nullid "k" .ID}}) AS x
    GROUP BY {{cols "x" .ID}}
    HAVING sum(1 - x.__side) > 0 AND sum(x.__side) > 0 AND count(*) > 2
), halves AS (
    -- The row pairs of one join whose values differ or whose id is repeated, each split into its source row
    -- (__side 0) and its sink row (1), with the other input's rows of the id (__other; 1 when not repeated). The
    -- source rows are joined to the repeated ids and to the sink rows on the same key columns (MatchKeys): Trino
    -- partitions them once for both joins.
    SELECT {{cols "a" .ID}}, h.*
    FROM (SELECT s.*, r.__ns, r.__nk
          FROM (SELECT {{cols "s" .ID}}, {{$.MatchKeys "s" .ID}}, {{$.SideValues "s"}}, {{loc "s"}} AS __loc
                FROM source AS s WHERE NOT {{nullid "s" .ID}}) AS s
          LEFT JOIN repeated_ids AS r ON {{$.KeysMatch "s" "r" .ID}}) AS a
    JOIN (SELECT {{cols "k" .ID}}, {{$.MatchKeys "k" .ID}}, {{$.SideValues "k"}}, {{loc "k"}} AS __loc
          FROM sink AS k WHERE NOT {{nullid "k" .ID}}) AS b ON {{$.KeysMatch "a" "b" .ID}}
    CROSS JOIN UNNEST(ARRAY[{{$.HalfRow "a" 0 "coalesce(a.__nk, 1)"}}, {{$.HalfRow "b" 1 "coalesce(a.__ns, 1)"}}]) AS h{{$.HalfFields}}
    WHERE {{$.DiffersOf "a" "b"}} OR a.__ns IS NOT NULL
), all_rows AS (
    -- The rows of those ids: each distinct row counted back from the pairs it is in (their number over __other).
    SELECT {{cols "c" .ID}}, c.__side, {{$.ValueTexts "c"}}, c.__loc
    FROM (SELECT {{cols "h" .ID}}, h.__side, {{$.ValueTexts "h"}}, h.__loc, count(*) / max(h.__other) AS __copies
          FROM halves AS h
          GROUP BY {{cols "h" .ID}}, h.__side, {{$.ValueTexts "h"}}, h.__loc) AS c
    CROSS JOIN UNNEST(sequence(1, c.__copies)) AS u(__copy)
), repeated AS (
    -- The copies of each such id, numbered.
    SELECT a.*,
           row_number() OVER (PARTITION BY {{cols "a" .ID}}, a.__side ORDER BY a.__loc, {{$.ValuesOrder "a"}}) AS __n,
           row_number() OVER (PARTITION BY {{cols "a" .ID}}, a.__side, {{$.Values "a"}} ORDER BY a.__loc) AS __copy_same,
           sum(1 - a.__side) OVER (PARTITION BY {{cols "a" .ID}}, {{$.Values "a"}}) AS __same_s,
           sum(a.__side) OVER (PARTITION BY {{cols "a" .ID}}, {{$.Values "a"}}) AS __same_k
    FROM all_rows AS a
), copies AS (
    -- __left: no equal copy of the other input pairs off with it; the copies left numbered in the order of their
    -- compared values, then of __n (__copy_left), and counted per input.
    SELECT r.*,
           row_number() OVER (PARTITION BY {{cols "r" .ID}}, r.__side, r.__left ORDER BY {{$.ValuesOrder "r"}}, r.__n) AS __copy_left,
           sum(IF(r.__side = 0 AND r.__left, 1, 0)) OVER (PARTITION BY {{cols "r" .ID}}) AS __left_s,
           sum(IF(r.__side = 1 AND r.__left, 1, 0)) OVER (PARTITION BY {{cols "r" .ID}}) AS __left_k
    FROM (SELECT c.*, (c.__side = 0 AND c.__copy_same > c.__same_k) OR (c.__side = 1 AND c.__copy_same > c.__same_s) AS __left
          FROM repeated AS c) AS r
), grouped AS (
    -- The copies of each id as one array: the pairing below reads them once (one array, not one per input: an
    -- aggregation with a FILTER per input took several times as long).
    SELECT {{cols "r" .ID}}, array_agg({{$.CopyRow "r"}}) AS __copies
    FROM copies AS r
    GROUP BY {{cols "r" .ID}}
), paired AS (
    -- The n-th source copy left with the n-th sink copy left; a source copy left over (the sink has fewer left)
    -- with every sink copy, when it equals none of them; a sink copy left over with every source copy, likewise.
    SELECT {{cols "g" .ID}}, {{$.PairColumns "a" "b"}}
    FROM grouped AS g
    CROSS JOIN UNNEST(g.__copies) AS a{{$.CopyFields}}
    CROSS JOIN UNNEST(g.__copies) AS b{{$.CopyFields}}
    WHERE a.__side = 0 AND b.__side = 1
      AND ((a.__left AND b.__left AND a.__copy_left = b.__copy_left)
        OR (a.__left AND a.__copy_left > a.__left_k AND a.__same_k = 0)
        OR (b.__left AND b.__copy_left > b.__left_s AND b.__same_s = 0))
), pairs AS (
    -- Each matched pair with some difference, its compared columns as an array of rows.
    SELECT {{cols "p" .ID}}, {{$.ComparedArray "p"}} AS __compared, p.__s_loc AS source_location, p.__k_loc AS sink_location
    FROM paired AS p
    WHERE {{$.Differs "p"}}
)
SELECT {{cols "p" .ID}},
       c."column" AS "column",
       c.source_value AS source_value,
       c.sink_value AS sink_value,
       c.difference AS difference,
       p.source_location,
       p.sink_location
FROM pairs AS p
CROSS JOIN UNNEST(p.__compared) AS c("column", differs, source_value, sink_value, difference)
WHERE c.differs
