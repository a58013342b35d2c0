-- statement: value_mismatches
-- description: Check value_mismatches (queries/050_value_mismatches.sql) in Trino's dialect, without tolerance: and
-- description: normalize: (refused on Trino): one row per matched row pair and differing compared column, the copies
-- description: of an id on more than one row of either input paired by the DuckDB file's rule. Trino inlines every
-- description: reference to a WITH query, so the rule is written with window functions over one pass of each input
-- description: instead of the DuckDB file's self-joins: an id on one row of each input is paired by grouping; the
-- description: copies of a repeated id are numbered (__n: in the order of their location, then of their compared
-- description: values, where DuckDB uses the input row; rows equal in both give the same rows), those with an equal
-- description: copy in the other input (the same values, the same ordinal among them: __copy_same against the other
-- description: input's count of them) pair off, and the copies left (__left) are paired as DuckDB pairs them.
-- returns: the id columns, column, source_value, sink_value, difference, source_location, sink_location
WITH all_rows AS (
    -- Every row with an id: its compared values (__v0, …) and their text (__t0, …), its location, and how many
    -- rows of each input its id has.
    SELECT u.*,
           sum(1 - u.__side) OVER (PARTITION BY {{cols "u" .ID}}) AS __ns,
           sum(u.__side) OVER (PARTITION BY {{cols "u" .ID}}) AS __nk
    FROM (SELECT {{cols "s" .ID}}, 0 AS __side, {{$.SideValues "s"}}, {{loc "s"}} AS __loc FROM source AS s WHERE NOT {{nullid "s" .ID}}
          UNION ALL
          SELECT {{cols "k" .ID}}, 1, {{$.SideValues "k"}}, {{loc "k"}} FROM sink AS k WHERE NOT {{nullid "k" .ID}}) AS u
), single AS (
    -- An id on one row of each input: that row pair.
    SELECT {{cols "a" .ID}}, {{$.SinglePair "a"}}
    FROM all_rows AS a
    WHERE a.__ns = 1 AND a.__nk = 1
    GROUP BY {{cols "a" .ID}}
), repeated AS (
    -- The copies of an id on more than one row of either input and on a row of each.
    SELECT a.*,
           row_number() OVER (PARTITION BY {{cols "a" .ID}}, a.__side ORDER BY a.__loc, {{$.ValuesOrder "a"}}) AS __n,
           row_number() OVER (PARTITION BY {{cols "a" .ID}}, a.__side, {{$.Values "a"}} ORDER BY a.__loc) AS __copy_same,
           sum(1 - a.__side) OVER (PARTITION BY {{cols "a" .ID}}, {{$.Values "a"}}) AS __same_s,
           sum(a.__side) OVER (PARTITION BY {{cols "a" .ID}}, {{$.Values "a"}}) AS __same_k
    FROM all_rows AS a
    WHERE a.__ns > 0 AND a.__nk > 0 AND a.__ns + a.__nk > 2
), copies AS (
    -- __left: no equal copy of the other input pairs off with it; the copies left numbered in the order of their
    -- compared values, then of __n (__copy_left), and counted per input.
    SELECT r.*,
           row_number() OVER (PARTITION BY {{cols "r" .ID}}, r.__side, r.__left ORDER BY {{$.ValuesOrder "r"}}, r.__n) AS __copy_left,
           sum(IF(r.__side = 0 AND r.__left, 1, 0)) OVER (PARTITION BY {{cols "r" .ID}}) AS __left_s,
           sum(IF(r.__side = 1 AND r.__left, 1, 0)) OVER (PARTITION BY {{cols "r" .ID}}) AS __left_k
    FROM (SELECT c.*, (c.__side = 0 AND c.__copy_same > c.__same_k) OR (c.__side = 1 AND c.__copy_same > c.__same_s) AS __left
          FROM repeated AS c) AS r
), paired AS (
    -- The n-th source copy left with the n-th sink copy left; a source copy left over (the sink has fewer left)
    -- with every sink copy, when it equals none of them; a sink copy left over with every source copy, likewise.
    SELECT {{cols "a" .ID}}, {{$.PairColumns "a" "b"}}
    FROM copies AS a
    JOIN copies AS b ON {{$.Match "a" "b" .ID}} AND a.__side = 0 AND b.__side = 1
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
