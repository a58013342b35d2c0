-- check: duplicate_ids
-- assertion: accuracy
-- description: Ids on more than one row of the sink (double-posted) or of the source (a source that is not clean),
-- description: with the row count, whether the copies conflict in value, and the checkpoint ids that wrote them.
-- requires: id
WITH keyed AS (
    SELECT {{cols "s" .ID}}, 'source' AS side, {{valuekey "s" .SourceValueCols}} AS value_key,
           CAST(NULL AS VARCHAR) AS checkpoint_id, {{loc "s"}} AS location, s.__row AS input_row
    FROM source AS s
    WHERE NOT {{nullid "s" .ID}}
    UNION ALL
    SELECT {{cols "k" .ID}}, 'sink', {{valuekey "k" .SinkValueCols}},
           {{if .Checkpoint}}CAST(k.{{q .Checkpoint}} AS VARCHAR){{else}}CAST(NULL AS VARCHAR){{end}}, {{loc "k"}}, k.__row
    FROM sink AS k
    WHERE NOT {{nullid "k" .ID}}
)
SELECT {{cols "" .ID}},
       side,
       count(*) AS row_count,
       count(DISTINCT value_key) > 1 AS conflicting,
       {{sortedlist "checkpoint_id"}} AS checkpoint_ids,
       string_agg(location, ';' ORDER BY input_row) AS locations
FROM keyed
GROUP BY {{cols "" .ID}}, side
HAVING count(*) > 1
