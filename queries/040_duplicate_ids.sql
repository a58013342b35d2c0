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
{{- if .IDCounts}}
    -- The repeated ids from id_counts (_id_counts.sql).
    SELECT {{cols "x" .ID}} FROM id_counts AS x WHERE x.__source_rows > 1 AND NOT {{nullid "x" .ID}}
), repeated_sink AS (
    SELECT {{cols "x" .ID}} FROM id_counts AS x WHERE x.__sink_rows > 1 AND NOT {{nullid "x" .ID}}
{{- else}}
    SELECT {{cols "" .ID}}
    FROM source AS s
    WHERE NOT {{nullid "s" .ID}}
    GROUP BY {{cols "" .ID}}
    HAVING count(*) > 1
), repeated_sink AS (
    SELECT {{cols "" .ID}}
    FROM sink AS k
    WHERE NOT {{nullid "k" .ID}}
    GROUP BY {{cols "" .ID}}
    HAVING count(*) > 1
{{- end}}
), keyed AS (
    SELECT {{cols "s" .ID}}, 'source' AS side, {{valuekey "s" .SourceValueCols}} AS value_key,
           CAST(NULL AS VARCHAR) AS checkpoint_id, {{loc "s" $.SourceLocation}} AS location, s.__row AS input_row
    FROM source AS s SEMI JOIN repeated_source AS r ON {{match "s" "r" .ID}}
    UNION ALL
    SELECT {{cols "k" .ID}}, 'sink', {{valuekey "k" .SinkValueCols}},
           {{if .Checkpoint}}{{cpid "k" .Checkpoint}}{{else}}CAST(NULL AS VARCHAR){{end}}, {{loc "k" $.SinkLocation}}, k.__row
    FROM sink AS k SEMI JOIN repeated_sink AS r ON {{match "k" "r" .ID}}
)
SELECT {{cols "" .ID}},
       side,
       count(*) AS row_count,
       count(DISTINCT value_key) > 1 AS conflicting,
       {{sortedlist "checkpoint_id"}} AS checkpoint_ids,
       string_agg(location, ';' ORDER BY input_row) AS locations
FROM keyed
GROUP BY {{cols "" .ID}}, side
