-- statement: value_mismatches
-- description: Check value_mismatches (queries/050_value_mismatches.sql) in Trino's dialect, without tolerance: and
-- description: normalize: (refused on Trino): one row per matched row pair and differing compared column, the copies
-- description: of an id on more than one row of either input paired by the DuckDB file's rule. Trino inlines every
-- description: reference to a WITH query, so the rule is written with fewer references than the DuckDB file's
-- description: self-joins: an id on one row of each input (counted by a narrow aggregation of the ids) is one join's
-- description: row pair; the copies of a repeated id (window functions over those rows only, read once, then paired
-- description: within arrays of the id's copies) are numbered (__n: in the order of their location, then of their compared
-- description: values, where DuckDB uses the input row; rows equal in both give the same rows), those with an equal
-- description: copy in the other input (the same values, the same ordinal among them: __copy_same against the other
-- description: input's count of them) pair off, and the copies left (__left) are paired as DuckDB pairs them.
-- returns: the id columns, column, source_value, sink_value, difference, source_location, sink_location
WITH all_rows AS (
    -- Every row with an id: its compared values (__v0, …) and their text (__t0, …) and its location.
    SELECT {{cols "s" .ID}}, 0 AS __side, {{$.SideValues "s"}}, {{loc "s"}} AS __loc FROM source AS s WHERE NOT {{nullid "s" .ID}}
    UNION ALL
    SELECT {{cols "k" .ID}}, 1, {{$.SideValues "k"}}, {{loc "k"}} FROM sink AS k WHERE NOT {{nullid "k" .ID}}
), counts AS (
    -- Each id's rows in each input: a narrow hash aggregation of the ids alone.
    SELECT {{cols "x" .ID}}, sum(1 - x.__side) AS __ns, sum(x.__side) AS __nk
    FROM (SELECT {{cols "s" .ID}}, 0 AS __side FROM source AS s WHERE NOT {{nullid "s" .ID}}
          UNION ALL
          SELECT {{cols "k" .ID}}, 1 FROM sink AS k WHERE NOT {{nullid "k" .ID}}) AS x
    GROUP BY {{cols "x" .ID}}
), repeated_ids AS (
    -- The ids on more than one row of either input and on a row of each (few: a broadcast join's side).
    SELECT {{cols "c" .ID}}, TRUE AS __repeated FROM counts AS c WHERE c.__ns > 0 AND c.__nk > 0 AND c.__ns + c.__nk > 2
), single AS (
    -- An id on one row of each input: that row pair (one join, as a hand-written check joins), when its values
    -- differ and its id is not repeated.
    SELECT {{cols "a" .ID}}, {{$.PairColumns "a" "b"}}
    FROM (SELECT {{cols "s" .ID}}, {{$.SideValues "s"}}, {{loc "s"}} AS __loc FROM source AS s WHERE NOT {{nullid "s" .ID}}) AS a
    JOIN (SELECT {{cols "k" .ID}}, {{$.SideValues "k"}}, {{loc "k"}} AS __loc FROM sink AS k WHERE NOT {{nullid "k" .ID}}) AS b ON {{$.Match "a" "b" .ID}}
    LEFT JOIN repeated_ids AS r ON {{$.Match "a" "r" .ID}}
    WHERE {{$.DiffersOf "a" "b"}} AND r.__repeated IS NULL
), repeated AS (
    -- The copies of an id on more than one row of either input and on a row of each, numbered.
    SELECT a.*,
           row_number() OVER (PARTITION BY {{cols "a" .ID}}, a.__side ORDER BY a.__loc, {{$.ValuesOrder "a"}}) AS __n,
           row_number() OVER (PARTITION BY {{cols "a" .ID}}, a.__side, {{$.Values "a"}} ORDER BY a.__loc) AS __copy_same,
           sum(1 - a.__side) OVER (PARTITION BY {{cols "a" .ID}}, {{$.Values "a"}}) AS __same_s,
           sum(a.__side) OVER (PARTITION BY {{cols "a" .ID}}, {{$.Values "a"}}) AS __same_k
    FROM all_rows AS a
    JOIN repeated_ids AS r ON {{$.Match "a" "r" .ID}}
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
    -- The copies of each repeated id as two arrays, one per input: the pairing below reads them once.
    SELECT {{cols "r" .ID}},
           array_agg({{$.CopyRow "r"}}) FILTER (WHERE r.__side = 0) AS __source_copies,
           array_agg({{$.CopyRow "r"}}) FILTER (WHERE r.__side = 1) AS __sink_copies
    FROM copies AS r
    GROUP BY {{cols "r" .ID}}
), paired AS (
    -- The n-th source copy left with the n-th sink copy left; a source copy left over (the sink has fewer left)
    -- with every sink copy, when it equals none of them; a sink copy left over with every source copy, likewise.
    SELECT {{cols "g" .ID}}, {{$.PairColumns "a" "b"}}
    FROM grouped AS g
    CROSS JOIN UNNEST(g.__source_copies) AS a{{$.CopyFields}}
    CROSS JOIN UNNEST(g.__sink_copies) AS b{{$.CopyFields}}
    WHERE (a.__left AND b.__left AND a.__copy_left = b.__copy_left)
       OR (a.__left AND a.__copy_left > a.__left_k AND a.__same_k = 0)
       OR (b.__left AND b.__copy_left > b.__left_s AND b.__same_s = 0)
), pairs AS (
    -- Each matched pair with some difference, its compared columns as an array of rows.
    SELECT {{cols "p" .ID}}, {{$.ComparedArray "p"}} AS __compared, p.__s_loc AS source_location, p.__k_loc AS sink_location
    FROM (SELECT * FROM single UNION ALL SELECT * FROM paired) AS p
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
