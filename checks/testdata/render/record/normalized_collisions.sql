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
WITH
id_changed AS (
    -- The normalised values of the rows written otherwise, per input: only
    -- these can be written more than one way.
    SELECT DISTINCT 'source' AS __side, s."entry_id", s."leg"
    FROM source AS s JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    UNION ALL
    SELECT DISTINCT 'sink', k."entry_id", k."leg"
    FROM sink AS k JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
), id_spelled AS (
    -- Each way one of them is written in its input: the rows and the first.
    SELECT s."entry_id", s."leg", 'source' AS __side, CASE WHEN __w.__row IS NULL THEN CAST(s."entry_id" AS VARCHAR) ELSE __w."entry_id" END AS __spelling,
           count(*) AS __rows, arg_min((s."__file" || ':' || s."__line"), s.__row) AS __location
    FROM source AS s
    SEMI JOIN (SELECT * FROM id_changed WHERE __side = 'source') AS __c ON (s."entry_id" IS NOT DISTINCT FROM __c."entry_id" AND s."leg" IS NOT DISTINCT FROM __c."leg")
    LEFT JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    WHERE NOT ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
    GROUP BY ALL
    UNION ALL
    SELECT k."entry_id", k."leg", 'sink', CASE WHEN __w.__row IS NULL THEN CAST(k."entry_id" AS VARCHAR) ELSE __w."entry_id" END,
           count(*), arg_min((k."__file" || ':' || k."__line"), k.__row)
    FROM sink AS k
    SEMI JOIN (SELECT * FROM id_changed WHERE __side = 'sink') AS __c ON (k."entry_id" IS NOT DISTINCT FROM __c."entry_id" AND k."leg" IS NOT DISTINCT FROM __c."leg")
    LEFT JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
    WHERE NOT ((k."entry_id" IS NULL OR length(CAST(k."entry_id" AS VARCHAR)) = 0) AND (k."leg" IS NULL OR length(CAST(k."leg" AS VARCHAR)) = 0))
    GROUP BY ALL
), id_collisions AS (
    SELECT x."entry_id", x."leg", x.__side,
           to_json(list(x.__spelling ORDER BY x.__spelling)) AS __spellings,
           CAST(sum(x.__rows) AS BIGINT) AS __row_count,
           string_agg(x.__location, ';' ORDER BY x.__spelling) AS __locations
    FROM id_spelled AS x
    GROUP BY x."entry_id", x."leg", x.__side
    HAVING count(*) > 1
),
group_by_changed AS (
    -- The normalised values of the rows written otherwise, per input: only
    -- these can be written more than one way.
    SELECT DISTINCT 'source' AS __side, s."account"
    FROM source AS s JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    UNION ALL
    SELECT DISTINCT 'sink', k."account"
    FROM sink AS k JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
), group_by_spelled AS (
    -- Each way one of them is written in its input: the rows and the first.
    SELECT s."account", 'source' AS __side, CASE WHEN __w.__row IS NULL THEN CAST(s."account" AS VARCHAR) ELSE __w."account" END AS __spelling,
           count(*) AS __rows, arg_min((s."__file" || ':' || s."__line"), s.__row) AS __location
    FROM source AS s
    SEMI JOIN (SELECT * FROM group_by_changed WHERE __side = 'source') AS __c ON (s."account" IS NOT DISTINCT FROM __c."account")
    LEFT JOIN key_spellings AS __w ON __w.__side = 'source' AND __w.__row = s.__row
    GROUP BY ALL
    UNION ALL
    SELECT k."account", 'sink', CASE WHEN __w.__row IS NULL THEN CAST(k."account" AS VARCHAR) ELSE __w."account" END,
           count(*), arg_min((k."__file" || ':' || k."__line"), k.__row)
    FROM sink AS k
    SEMI JOIN (SELECT * FROM group_by_changed WHERE __side = 'sink') AS __c ON (k."account" IS NOT DISTINCT FROM __c."account")
    LEFT JOIN key_spellings AS __w ON __w.__side = 'sink' AND __w.__row = k.__row
    GROUP BY ALL
), group_by_collisions AS (
    SELECT x."account", x.__side,
           to_json(list(x.__spelling ORDER BY x.__spelling)) AS __spellings,
           CAST(sum(x.__rows) AS BIGINT) AS __row_count,
           string_agg(x.__location, ';' ORDER BY x.__spelling) AS __locations
    FROM group_by_spelled AS x
    GROUP BY x."account", x.__side
    HAVING count(*) > 1
)
SELECT c."entry_id", c."leg", NULL AS "account", 'id' AS keyed_by, c.__side AS side, CAST(c.__spellings AS VARCHAR) AS spellings,
       c.__row_count AS row_count, c.__locations AS locations
FROM id_collisions AS c
UNION ALL
SELECT NULL AS "entry_id", NULL AS "leg", c."account", 'group_by' AS keyed_by, c.__side AS side, CAST(c.__spellings AS VARCHAR) AS spellings,
       c.__row_count AS row_count, c.__locations AS locations
FROM group_by_collisions AS c
