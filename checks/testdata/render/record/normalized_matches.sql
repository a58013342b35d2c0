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
    SELECT 'memo' AS "column", lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')) AS normalized
    FROM source AS s
    GROUP BY 2
    HAVING count(DISTINCT NULLIF(CAST(s."memo" AS VARCHAR), '')) > 1
    UNION ALL
    SELECT 'memo', lower(NULLIF(regexp_replace(NULLIF(CAST(k."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), ''))
    FROM sink AS k
    GROUP BY 2
    HAVING count(DISTINCT NULLIF(CAST(k."memo" AS VARCHAR), '')) > 1
), pairs AS (
    SELECT s."entry_id", s."leg",
           [{'column': 'memo',
             'needed': (NULLIF(CAST(s."memo" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."memo" AS VARCHAR), '') AND NOT (lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')) IS DISTINCT FROM lower(NULLIF(regexp_replace(NULLIF(CAST(k."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')))),
             'source_value': CAST(s."memo" AS VARCHAR), 'sink_value': CAST(k."memo" AS VARCHAR),
             'normalized': lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), ''))}] AS __compared,
           (s."__file" || ':' || s."__line") AS source_location,
           (k."__file" || ':' || k."__line") AS sink_location
    FROM source AS s
    JOIN sink AS k ON (s."entry_id" IS NOT DISTINCT FROM k."entry_id" AND s."leg" IS NOT DISTINCT FROM k."leg")
    WHERE NOT ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
      AND ((NULLIF(CAST(s."memo" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."memo" AS VARCHAR), '') AND NOT (lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')) IS DISTINCT FROM lower(NULLIF(regexp_replace(NULLIF(CAST(k."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')))))
)
SELECT p."entry_id", p."leg",
       p.__c."column" AS "column",
       p.__c.source_value AS source_value,
       p.__c.sink_value AS sink_value,
       p.__c.normalized AS normalized_value,
       EXISTS (SELECT 1 FROM spellings AS sp WHERE sp."column" = p.__c."column" AND sp.normalized = p.__c.normalized) AS collision,
       p.source_location,
       p.sink_location
FROM (SELECT pairs.*, unnest(pairs.__compared) AS __c FROM pairs) AS p
WHERE p.__c.needed
