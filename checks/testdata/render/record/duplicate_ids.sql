-- check: duplicate_ids
-- assertion: accuracy
-- description: Ids on more than one row of the sink (double-posted) or of the source (a source that is not clean),
-- description: with the row count, whether the copies conflict in value, and the checkpoint ids that wrote them.
-- requires: id
-- chart: replayed_keys
-- notes: partial_null_ids
-- columns: checkpoint_ids=checkpoints, locations=location
WITH repeated AS (
    -- Only ids seen more than once are looked at again: the value keys and
    -- locations below are built for those rows alone.
    SELECT "entry_id", "leg", 'source' AS side
    FROM source AS s
    WHERE NOT ((s."entry_id" IS NULL OR CAST(s."entry_id" AS VARCHAR) = '') AND (s."leg" IS NULL OR CAST(s."leg" AS VARCHAR) = ''))
    GROUP BY "entry_id", "leg"
    HAVING count(*) > 1
    UNION ALL
    SELECT "entry_id", "leg", 'sink'
    FROM sink AS k
    WHERE NOT ((k."entry_id" IS NULL OR CAST(k."entry_id" AS VARCHAR) = '') AND (k."leg" IS NULL OR CAST(k."leg" AS VARCHAR) = ''))
    GROUP BY "entry_id", "leg"
    HAVING count(*) > 1
), keyed AS (
    SELECT s."entry_id", s."leg", 'source' AS side, CAST(struct_pack("amount" := s."amount", "fee" := s."fee") AS VARCHAR) AS value_key,
           CAST(NULL AS VARCHAR) AS checkpoint_id, (s."__file" || ':' || s."__line") AS location, s.__row AS input_row
    FROM source AS s
    WHERE EXISTS (SELECT 1 FROM repeated AS r WHERE r.side = 'source' AND (s."entry_id" IS NOT DISTINCT FROM r."entry_id" AND s."leg" IS NOT DISTINCT FROM r."leg"))
    UNION ALL
    SELECT k."entry_id", k."leg", 'sink', CAST(struct_pack("amount" := k."amount", "fee" := k."fee") AS VARCHAR),
           coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL'), (k."__file" || ':' || k."__line"), k.__row
    FROM sink AS k
    WHERE EXISTS (SELECT 1 FROM repeated AS r WHERE r.side = 'sink' AND (k."entry_id" IS NOT DISTINCT FROM r."entry_id" AND k."leg" IS NOT DISTINCT FROM r."leg"))
)
SELECT "entry_id", "leg",
       side,
       count(*) AS row_count,
       count(DISTINCT value_key) > 1 AS conflicting,
       array_to_string(list(DISTINCT CAST(checkpoint_id AS VARCHAR) ORDER BY TRY_CAST(CAST(checkpoint_id AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(checkpoint_id AS VARCHAR)), ';') AS checkpoint_ids,
       string_agg(location, ';' ORDER BY input_row) AS locations
FROM keyed
GROUP BY "entry_id", "leg", side
