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
WITH
spellings AS (
    -- Normalised values written more than one way within one input.
    -- A group column normalised in place: its values as written are those
    -- of key_spellings where it has the row.
    SELECT 'account' AS "column", CAST(s."account" AS VARCHAR) AS normalized
    FROM source AS s LEFT JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    GROUP BY 2
    HAVING count(DISTINCT CASE WHEN __w.__row IS NULL THEN CAST(s."account" AS VARCHAR) ELSE __w."account" END) > 1
    UNION ALL
    SELECT 'account', CAST(k."account" AS VARCHAR)
    FROM sink AS k LEFT JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
    GROUP BY 2
    HAVING count(DISTINCT CASE WHEN __w.__row IS NULL THEN CAST(k."account" AS VARCHAR) ELSE __w."account" END) > 1
    UNION ALL
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
           [{'column': 'account',
             'needed': (CASE WHEN __ws.__row IS NULL THEN CAST(s."account" AS VARCHAR) ELSE __ws."account" END IS DISTINCT FROM CASE WHEN __wk.__row IS NULL THEN CAST(k."account" AS VARCHAR) ELSE __wk."account" END AND NOT (NULLIF(CAST(s."account" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."account" AS VARCHAR), ''))),
             'source_value': CASE WHEN __ws.__row IS NULL THEN CAST(s."account" AS VARCHAR) ELSE __ws."account" END, 'sink_value': CASE WHEN __wk.__row IS NULL THEN CAST(k."account" AS VARCHAR) ELSE __wk."account" END,
             'normalized': NULLIF(CAST(s."account" AS VARCHAR), '')},
            {'column': 'memo',
             'needed': (NULLIF(CAST(s."memo" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."memo" AS VARCHAR), '') AND NOT (lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')) IS DISTINCT FROM lower(NULLIF(regexp_replace(NULLIF(CAST(k."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')))),
             'source_value': CAST(s."memo" AS VARCHAR), 'sink_value': CAST(k."memo" AS VARCHAR),
             'normalized': lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), ''))}] AS __compared,
           (s."__file" || ':' || s."__line") AS source_location,
           (k."__file" || ':' || k."__line") AS sink_location
    FROM source AS s
    JOIN sink AS k ON (s."entry_id" IS NOT DISTINCT FROM k."entry_id" AND s."leg" IS NOT DISTINCT FROM k."leg")
    LEFT JOIN key_spellings AS __ws ON __ws.__side = 'source' AND __ws.__row = s.__row
    LEFT JOIN key_spellings AS __wk ON __wk.__side = 'sink' AND __wk.__row = k.__row
    WHERE NOT ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
      AND ((CASE WHEN __ws.__row IS NULL THEN CAST(s."account" AS VARCHAR) ELSE __ws."account" END IS DISTINCT FROM CASE WHEN __wk.__row IS NULL THEN CAST(k."account" AS VARCHAR) ELSE __wk."account" END AND NOT (NULLIF(CAST(s."account" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."account" AS VARCHAR), '')))
           OR (NULLIF(CAST(s."memo" AS VARCHAR), '') IS DISTINCT FROM NULLIF(CAST(k."memo" AS VARCHAR), '') AND NOT (lower(NULLIF(regexp_replace(NULLIF(CAST(s."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')) IS DISTINCT FROM lower(NULLIF(regexp_replace(NULLIF(CAST(k."memo" AS VARCHAR), ''), '^\s+|\s+$', '', 'g'), '')))))
),
id_changed AS (
    -- The normalised ids of the rows whose id is written otherwise: only
    -- these can have been matched by normalising.
    SELECT s."entry_id", s."leg" FROM source AS s JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    UNION
    SELECT k."entry_id", k."leg" FROM sink AS k JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
), id_collisions AS (
    -- Those written more than one way within one input (the exceptions of
    -- normalized_collisions).
    SELECT s."entry_id", s."leg"
    FROM source AS s
    SEMI JOIN id_changed AS __x ON (s."entry_id" IS NOT DISTINCT FROM __x."entry_id" AND s."leg" IS NOT DISTINCT FROM __x."leg")
    LEFT JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    GROUP BY s."entry_id", s."leg"
    HAVING count(DISTINCT CASE WHEN __w.__row IS NULL THEN CAST(s."entry_id" AS VARCHAR) ELSE __w."entry_id" END) > 1
    UNION
    SELECT k."entry_id", k."leg"
    FROM sink AS k
    SEMI JOIN id_changed AS __x ON (k."entry_id" IS NOT DISTINCT FROM __x."entry_id" AND k."leg" IS NOT DISTINCT FROM __x."leg")
    LEFT JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
    GROUP BY k."entry_id", k."leg"
    HAVING count(DISTINCT CASE WHEN __w.__row IS NULL THEN CAST(k."entry_id" AS VARCHAR) ELSE __w."entry_id" END) > 1
), id_pairs AS (
    SELECT s."entry_id", s."leg",
           [{'column': 'entry_id', 'source_value': CASE WHEN __ws.__row IS NULL THEN CAST(s."entry_id" AS VARCHAR) ELSE __ws."entry_id" END, 'sink_value': CASE WHEN __wk.__row IS NULL THEN CAST(k."entry_id" AS VARCHAR) ELSE __wk."entry_id" END,
             'normalized': CAST(s."entry_id" AS VARCHAR)}] AS __ids,
           (s."__file" || ':' || s."__line") AS source_location,
           (k."__file" || ':' || k."__line") AS sink_location
    FROM source AS s
    SEMI JOIN id_changed AS __x ON (s."entry_id" IS NOT DISTINCT FROM __x."entry_id" AND s."leg" IS NOT DISTINCT FROM __x."leg")
    JOIN sink AS k ON (s."entry_id" IS NOT DISTINCT FROM k."entry_id" AND s."leg" IS NOT DISTINCT FROM k."leg")
    LEFT JOIN key_spellings AS __ws ON __ws.__side = 'source' AND __ws.__row = s.__row
    LEFT JOIN key_spellings AS __wk ON __wk.__side = 'sink' AND __wk.__row = k.__row
    WHERE NOT ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
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
UNION ALL
SELECT p."entry_id", p."leg",
       p.__c."column" AS "column",
       p.__c.source_value AS source_value,
       p.__c.sink_value AS sink_value,
       p.__c.normalized AS normalized_value,
       EXISTS (SELECT 1 FROM id_collisions AS __y WHERE (__y."entry_id" IS NOT DISTINCT FROM p."entry_id" AND __y."leg" IS NOT DISTINCT FROM p."leg")) AS collision,
       p.source_location,
       p.sink_location
FROM (SELECT id_pairs.*, unnest(id_pairs.__ids) AS __c FROM id_pairs) AS p
WHERE p.__c.source_value IS DISTINCT FROM p.__c.sink_value
