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
    SELECT "entry_id", "leg", TRUE AS __copy_repeated
    FROM (SELECT s."entry_id", s."leg", 0 AS __side FROM source AS s UNION ALL SELECT k."entry_id", k."leg", 1 FROM sink AS k) AS x
    WHERE NOT ((x."entry_id" IS NULL OR length(CAST(x."entry_id" AS VARCHAR)) = 0) AND (x."leg" IS NULL OR length(CAST(x."leg" AS VARCHAR)) = 0))
    GROUP BY "entry_id", "leg"
    HAVING count(*) FILTER (WHERE __side = 0) > 0 AND count(*) FILTER (WHERE __side = 1) > 0 AND count(*) > 2
), source_copies AS (
    -- Each copy of a repeated id, with its compared values as one key, numbered among the copies of its id with
    -- that key in input order.
    SELECT c.*, row_number() OVER (PARTITION BY c."entry_id", c."leg", c.__copy_key ORDER BY c.__row) AS __copy_same
    FROM (SELECT s."entry_id", s."leg", s.__row,
                 row(NULLIF(CAST(s."account" AS VARCHAR), ''), CAST(s."amount" AS DECIMAL(38,2)), CAST(s."fee" AS DECIMAL(38,4)), lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')), s."posted_at") AS __copy_key
          FROM source AS s SEMI JOIN repeated AS r ON (s."entry_id" IS NOT DISTINCT FROM r."entry_id" AND s."leg" IS NOT DISTINCT FROM r."leg")) AS c
), sink_copies AS (
    SELECT c.*, row_number() OVER (PARTITION BY c."entry_id", c."leg", c.__copy_key ORDER BY c.__row) AS __copy_same
    FROM (SELECT k."entry_id", k."leg", k.__row,
                 row(NULLIF(CAST(k."account" AS VARCHAR), ''), CAST(k."amount" AS DECIMAL(38,2)), CAST(k."fee" AS DECIMAL(38,4)), lower(NULLIF(regexp_replace(NULLIF(CAST(k."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')), timezone('Asia/Shanghai', CAST(k."posted_at" AS TIMESTAMP))) AS __copy_key
          FROM sink AS k SEMI JOIN repeated AS r ON (k."entry_id" IS NOT DISTINCT FROM r."entry_id" AND k."leg" IS NOT DISTINCT FROM r."leg")) AS c
), source_left AS (
    -- The copies no equal copy of the other input pairs off with, numbered in the order of their compared
    -- values, then of input.
    SELECT a.*, row_number() OVER (PARTITION BY a."entry_id", a."leg" ORDER BY a.__copy_key, a.__row) AS __copy_left
    FROM source_copies AS a
    ANTI JOIN sink_copies AS b ON (a."entry_id" IS NOT DISTINCT FROM b."entry_id" AND a."leg" IS NOT DISTINCT FROM b."leg") AND a.__copy_key IS NOT DISTINCT FROM b.__copy_key AND a.__copy_same = b.__copy_same
), sink_left AS (
    SELECT b.*, row_number() OVER (PARTITION BY b."entry_id", b."leg" ORDER BY b.__copy_key, b.__row) AS __copy_left
    FROM sink_copies AS b
    ANTI JOIN source_copies AS a ON (a."entry_id" IS NOT DISTINCT FROM b."entry_id" AND a."leg" IS NOT DISTINCT FROM b."leg") AND a.__copy_key IS NOT DISTINCT FROM b.__copy_key AND a.__copy_same = b.__copy_same
), paired AS (
    -- The n-th source copy left with the n-th sink copy left.
    SELECT a.__row AS __source_row, b.__row AS __sink_row, TRUE AS __copy_paired
    FROM source_left AS a JOIN sink_left AS b ON (a."entry_id" IS NOT DISTINCT FROM b."entry_id" AND a."leg" IS NOT DISTINCT FROM b."leg") AND a.__copy_left = b.__copy_left
    UNION ALL
    -- A source copy left over (the sink has fewer left) with every sink copy, when it equals none of them.
    SELECT a.__row, b.__row, TRUE
    FROM source_left AS a JOIN sink_copies AS b ON (a."entry_id" IS NOT DISTINCT FROM b."entry_id" AND a."leg" IS NOT DISTINCT FROM b."leg")
    WHERE NOT EXISTS (SELECT 1 FROM sink_left AS x WHERE (x."entry_id" IS NOT DISTINCT FROM a."entry_id" AND x."leg" IS NOT DISTINCT FROM a."leg") AND x.__copy_left = a.__copy_left)
      AND NOT EXISTS (SELECT 1 FROM sink_copies AS x WHERE (x."entry_id" IS NOT DISTINCT FROM a."entry_id" AND x."leg" IS NOT DISTINCT FROM a."leg") AND x.__copy_key IS NOT DISTINCT FROM a.__copy_key)
    UNION ALL
    -- A sink copy left over (the source has fewer left) with every source copy, when it equals none of them.
    SELECT a.__row, b.__row, TRUE
    FROM sink_left AS b JOIN source_copies AS a ON (a."entry_id" IS NOT DISTINCT FROM b."entry_id" AND a."leg" IS NOT DISTINCT FROM b."leg")
    WHERE NOT EXISTS (SELECT 1 FROM source_left AS x WHERE (x."entry_id" IS NOT DISTINCT FROM b."entry_id" AND x."leg" IS NOT DISTINCT FROM b."leg") AND x.__copy_left = b.__copy_left)
      AND NOT EXISTS (SELECT 1 FROM source_copies AS x WHERE (x."entry_id" IS NOT DISTINCT FROM b."entry_id" AND x."leg" IS NOT DISTINCT FROM b."leg") AND x.__copy_key IS NOT DISTINCT FROM b.__copy_key)
), pairs AS (
    -- Each matched pair with some difference, once; its compared columns as a list. A pair of a repeated id
    -- only when paired above.
    SELECT s."entry_id", s."leg",
           [{'column': 'account', 'differs': (NULLIF(CAST(s."account" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."account" AS VARCHAR), '')),
             'source_value': CAST(s."account" AS VARCHAR), 'sink_value': CAST(k."account" AS VARCHAR),
             'difference': CAST(NULL AS VARCHAR),
             'tolerance': CAST(NULL AS VARCHAR), 'within_tolerance': CAST(NULL AS BOOLEAN)},
            {'column': 'amount', 'differs': (s."amount" IS DISTINCT FROM k."amount"),
             'source_value': CAST(s."amount" AS VARCHAR), 'sink_value': CAST(k."amount" AS VARCHAR),
             'difference': CAST(CAST(CAST(k."amount" AS DECIMAL(38,2)) - CAST(s."amount" AS DECIMAL(38,2)) AS DECIMAL(38,2)) AS VARCHAR),
             'tolerance': '0.001', 'within_tolerance': abs(CAST(CAST(k."amount" AS DECIMAL(38,2)) - CAST(s."amount" AS DECIMAL(38,2)) AS DECIMAL(38,3))) <= CAST('0.001' AS DECIMAL(38,3))},
            {'column': 'fee', 'differs': (s."fee" IS DISTINCT FROM k."fee"),
             'source_value': CAST(s."fee" AS VARCHAR), 'sink_value': CAST(k."fee" AS VARCHAR),
             'difference': CAST(CAST(CAST(k."fee" AS DECIMAL(38,4)) - CAST(s."fee" AS DECIMAL(38,4)) AS DECIMAL(38,4)) AS VARCHAR),
             'tolerance': '0.1%', 'within_tolerance': CAST(abs(CAST(k."fee" AS DECIMAL(38,4)) - CAST(s."fee" AS DECIMAL(38,4))) AS DECIMAL(38,7)) <= CAST(abs(CAST(s."fee" AS DECIMAL(38,4))) * CAST('0.001' AS DECIMAL(3,3)) AS DECIMAL(38,7))},
            {'column': 'memo', 'differs': (lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')) IS DISTINCT FROM lower(NULLIF(regexp_replace(NULLIF(CAST(k."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), ''))),
             'source_value': CAST(s."memo" AS VARCHAR), 'sink_value': CAST(k."memo" AS VARCHAR),
             'difference': CAST(NULL AS VARCHAR),
             'tolerance': CAST(NULL AS VARCHAR), 'within_tolerance': CAST(NULL AS BOOLEAN)},
            {'column': 'posted_at', 'differs': (s."posted_at" IS DISTINCT FROM timezone('Asia/Shanghai', CAST(k."posted_at" AS TIMESTAMP))),
             'source_value': CAST(s."posted_at" AS VARCHAR), 'sink_value': CAST(k."posted_at" AS VARCHAR),
             'difference': CAST(timezone('Asia/Shanghai', CAST(k."posted_at" AS TIMESTAMP)) - s."posted_at" AS VARCHAR),
             'tolerance': '2s', 'within_tolerance': abs(epoch_us(timezone('Asia/Shanghai', CAST(k."posted_at" AS TIMESTAMP))) - epoch_us(s."posted_at")) <= 2000000}] AS __compared,
           (s."__file" || ':' || s."__line") AS source_location,
           (k."__file" || ':' || k."__line") AS sink_location
    FROM source AS s
    JOIN sink AS k ON (s."entry_id" IS NOT DISTINCT FROM k."entry_id" AND s."leg" IS NOT DISTINCT FROM k."leg")
    LEFT JOIN repeated AS r ON (s."entry_id" IS NOT DISTINCT FROM r."entry_id" AND s."leg" IS NOT DISTINCT FROM r."leg")
    LEFT JOIN paired AS pp ON pp.__source_row = s.__row AND pp.__sink_row = k.__row
    WHERE NOT ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
      AND (r.__copy_repeated IS NULL OR pp.__copy_paired)
      AND ((NULLIF(CAST(s."account" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."account" AS VARCHAR), ''))
           OR (s."amount" IS DISTINCT FROM k."amount")
           OR (s."fee" IS DISTINCT FROM k."fee")
           OR (lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')) IS DISTINCT FROM lower(NULLIF(regexp_replace(NULLIF(CAST(k."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')))
           OR (s."posted_at" IS DISTINCT FROM timezone('Asia/Shanghai', CAST(k."posted_at" AS TIMESTAMP))))
)
SELECT p."entry_id", p."leg",
       p.__c."column" AS "column",
       p.__c.source_value AS source_value,
       p.__c.sink_value AS sink_value,
       p.__c.difference AS difference,
       p.__c.tolerance AS tolerance,
       coalesce(p.__c.within_tolerance, FALSE) AS within_tolerance,
       p.source_location,
       p.sink_location
FROM (SELECT pairs.*, unnest(pairs.__compared) AS __c FROM pairs) AS p
WHERE p.__c.differs
