-- check: value_mismatches
-- assertion: accuracy
-- description: Matched source and sink rows whose values differ in a compared column (typed equality: text byte
-- description: for byte, numbers by exact value, timestamps as instants; NULL differs from any value), one row per
-- description: row pair and differing column: the column, both values as text (a measure at its exact scale), the
-- description: difference (exact for numbers, an interval for timestamps) and, where a tolerance is declared, the
-- description: tolerance and whether the difference is within it (such rows are listed but are not exceptions).
-- requires: id, compare
WITH pairs AS (
    -- Each matched pair with some difference, once; its compared columns as a list.
    SELECT s."id",
           [{'column': 'account', 'differs': (NULLIF(CAST(s."account" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."account" AS VARCHAR), '')),
             'source_value': CAST(s."account" AS VARCHAR), 'sink_value': CAST(k."account" AS VARCHAR),
             'difference': CAST(NULL AS VARCHAR),
             'tolerance': CAST(NULL AS VARCHAR), 'within_tolerance': CAST(NULL AS BOOLEAN)},
            {'column': 'amount', 'differs': (s."amount" IS DISTINCT FROM k."amount"),
             'source_value': CAST(s."amount" AS VARCHAR), 'sink_value': CAST(k."amount" AS VARCHAR),
             'difference': CAST(CAST(CAST(k."amount" AS DECIMAL(38,2)) - CAST(s."amount" AS DECIMAL(38,2)) AS DECIMAL(38,2)) AS VARCHAR),
             'tolerance': CAST(NULL AS VARCHAR), 'within_tolerance': CAST(NULL AS BOOLEAN)}] AS __compared,
           (s."__file" || ':' || s."__line") AS source_location,
           (k."__file" || ':' || k."__line") AS sink_location
    FROM source AS s
    JOIN sink AS k ON (s."id" IS NOT DISTINCT FROM k."id")
    WHERE NOT ((s."id" IS NULL OR length(CAST(s."id" AS VARCHAR)) = 0))
      AND ((NULLIF(CAST(s."account" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."account" AS VARCHAR), ''))
           OR (s."amount" IS DISTINCT FROM k."amount"))
)
SELECT p."id",
       p.__c."column" AS "column",
       p.__c.source_value AS source_value,
       p.__c.sink_value AS sink_value,
       p.__c.difference AS difference,
       p.source_location,
       p.sink_location
FROM (SELECT pairs.*, unnest(pairs.__compared) AS __c FROM pairs) AS p
WHERE p.__c.differs
