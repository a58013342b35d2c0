-- check: duplicate_ids
-- assertion: accuracy
-- description: Ids on more than one row of the sink (double-posted) or of the source (a source that is not clean),
-- description: with the row count, whether the copies conflict in value, and the checkpoint ids that wrote them.
-- requires: id
-- reads: id_counts
-- chart: replayed_keys
-- notes: partial_null_ids
-- totals: repeated_ids
-- columns: checkpoint_ids=checkpoints, locations=location
-- writes: side, row_count, conflicting
WITH repeated_source AS (
    -- Only ids seen more than once are looked at again: the value keys and
    -- locations below are built for those rows alone.
    SELECT "entry_id", "leg"
    FROM source AS s
    WHERE NOT ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
    GROUP BY "entry_id", "leg"
    HAVING count(*) > 1
), repeated_sink AS (
    SELECT "entry_id", "leg"
    FROM sink AS k
    WHERE NOT ((k."entry_id" IS NULL OR length(CAST(k."entry_id" AS VARCHAR)) = 0) AND (k."leg" IS NULL OR length(CAST(k."leg" AS VARCHAR)) = 0))
    GROUP BY "entry_id", "leg"
    HAVING count(*) > 1
), keyed AS (
    SELECT s."entry_id", s."leg", 'source' AS side, CAST(struct_pack("account" := s."account", "amount" := s."amount", "fee" := s."fee", "memo" := s."memo", "posted_at" := s."posted_at") AS VARCHAR) AS value_key,
           CAST(NULL AS VARCHAR) AS checkpoint_id, (s."__file" || ':' || s."__line") AS location, s.__row AS input_row
    FROM source AS s SEMI JOIN repeated_source AS r ON (s."entry_id" IS NOT DISTINCT FROM r."entry_id" AND s."leg" IS NOT DISTINCT FROM r."leg")
    UNION ALL
    SELECT k."entry_id", k."leg", 'sink', CAST(struct_pack("account" := k."account", "amount" := k."amount", "fee" := k."fee", "memo" := k."memo", "posted_at" := k."posted_at") AS VARCHAR),
           coalesce(CAST(k."checkpoint_id" AS VARCHAR), 'NULL'), (k."__file" || ':' || k."__line"), k.__row
    FROM sink AS k SEMI JOIN repeated_sink AS r ON (k."entry_id" IS NOT DISTINCT FROM r."entry_id" AND k."leg" IS NOT DISTINCT FROM r."leg")
)
SELECT "entry_id", "leg",
       side,
       count(*) AS row_count,
       count(DISTINCT value_key) > 1 AS conflicting,
       array_to_string(list(DISTINCT CAST(checkpoint_id AS VARCHAR) ORDER BY TRY_CAST(CAST(checkpoint_id AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(checkpoint_id AS VARCHAR)), ';') AS checkpoint_ids,
       string_agg(location, ';' ORDER BY input_row) AS locations
FROM keyed
GROUP BY "entry_id", "leg", side
