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
    WHERE NOT ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
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
