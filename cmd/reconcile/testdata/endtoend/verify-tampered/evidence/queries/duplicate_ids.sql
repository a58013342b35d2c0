-- check: duplicate_ids
-- assertion: accuracy
-- description: Ids on more than one row of the sink (double-posted) or of the source (a source that is not clean),
-- description: with the row count, whether the copies conflict in value, and the checkpoint ids that wrote them.
-- requires: id
-- reads: id_counts
WITH repeated_source AS (
    -- Only ids seen more than once are looked at again: the value keys and
    -- locations below are built for those rows alone.
    -- The repeated ids from id_counts (_id_counts.sql).
    SELECT x."id" FROM id_counts AS x WHERE x.__source_rows > 1 AND NOT ((x."id" IS NULL OR length(CAST(x."id" AS VARCHAR)) = 0))
), repeated_sink AS (
    SELECT x."id" FROM id_counts AS x WHERE x.__sink_rows > 1 AND NOT ((x."id" IS NULL OR length(CAST(x."id" AS VARCHAR)) = 0))
), keyed AS (
    SELECT s."id", 'source' AS side, CAST(struct_pack("account" := s."account", "amount" := s."amount") AS VARCHAR) AS value_key,
           CAST(NULL AS VARCHAR) AS checkpoint_id, (s."__file" || ':' || s."__line") AS location, s.__row AS input_row
    FROM source AS s SEMI JOIN repeated_source AS r ON (s."id" IS NOT DISTINCT FROM r."id")
    UNION ALL
    SELECT k."id", 'sink', CAST(struct_pack("account" := k."account", "amount" := k."amount") AS VARCHAR),
           CAST(NULL AS VARCHAR), (k."__file" || ':' || k."__line"), k.__row
    FROM sink AS k SEMI JOIN repeated_sink AS r ON (k."id" IS NOT DISTINCT FROM r."id")
)
SELECT "id",
       side,
       count(*) AS row_count,
       count(DISTINCT value_key) > 1 AS conflicting,
       array_to_string(list(DISTINCT CAST(checkpoint_id AS VARCHAR) ORDER BY TRY_CAST(CAST(checkpoint_id AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(checkpoint_id AS VARCHAR)), ';') AS checkpoint_ids,
       string_agg(location, ';' ORDER BY input_row) AS locations
FROM keyed
GROUP BY "id", side
