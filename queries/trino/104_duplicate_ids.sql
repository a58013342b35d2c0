-- statement: duplicate_ids
-- description: Check duplicate_ids (queries/040_duplicate_ids.sql) in Trino's dialect: the ids on more than one row
-- description: of an input, with the row count, whether the copies conflict in value (their compared values as one
-- description: ROW, NULL equal to NULL), the checkpoint ids and the locations (in text order: Trino has no input
-- description: order).
-- returns: the id columns, side, row_count, conflicting, checkpoint_ids, locations
WITH repeated_source AS (
    SELECT {{cols "s" .ID}}
    FROM source AS s
    WHERE NOT {{nullid "s" .ID}}
    GROUP BY {{cols "s" .ID}}
    HAVING count(*) > 1
), repeated_sink AS (
    SELECT {{cols "k" .ID}}
    FROM sink AS k
    WHERE NOT {{nullid "k" .ID}}
    GROUP BY {{cols "k" .ID}}
    HAVING count(*) > 1
), keyed AS (
    SELECT {{cols "s" .ID}}, 'source' AS side, {{valuekey "s" .SourceValueCols}} AS value_key,
           CAST(NULL AS VARCHAR) AS checkpoint_id, {{loc "s"}} AS location
    FROM source AS s JOIN repeated_source AS r ON {{$.Match "s" "r" .ID}}
    UNION ALL
    SELECT {{cols "k" .ID}}, 'sink', {{valuekey "k" .SinkValueCols}},
           {{if .Checkpoint}}{{cpid "k" .Checkpoint}}{{else}}CAST(NULL AS VARCHAR){{end}}, {{loc "k"}}
    FROM sink AS k JOIN repeated_sink AS r ON {{$.Match "k" "r" .ID}}
)
SELECT {{cols "" .ID}},
       side,
       count(*) AS row_count,
       count(DISTINCT value_key) > 1 AS conflicting,
       {{sortedlist "checkpoint_id"}} AS checkpoint_ids,
       listagg(location, ';') WITHIN GROUP (ORDER BY location) AS locations
FROM keyed
GROUP BY {{cols "" .ID}}, side
