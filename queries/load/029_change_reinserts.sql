-- statement: change_reinserts
-- description: Keys of a table's changes (sources.ChangeLog: rows inserted and deleted, in commit order as __row
-- description: numbers them) inserted while an earlier insert of the key is still live — no delete of the key
-- description: between them — grouped by the commit that inserted the key again and the commit of the live
-- description: earlier insert: a row the table holds twice, a checkpoint committed again. Per key, in order, the
-- description: live copies count as a counter held at zero or above: an insert adds one, a delete of one row (by
-- description: position) takes one away, a delete of every row of the key (.DeleteAll: by equality) sets it to
-- description: zero; a delete of a row inserted before the range may take away a copy the range never counted,
-- description: hence the floor (the floored count after a row is its running sum less the lowest running sum up to
-- description: it, or zero). An insert made when the count is one or more is listed. Only keys inserted more than
-- description: once are looked at. Each group gives its count and its first key (in read order), with the
-- description: location and checkpoint of both inserts.
-- returns: commit, other_commit, keys BIGINT, key_text, location, other_location, checkpoint, other_checkpoint
WITH repeated AS (
    SELECT {{cols "t" .Key}}
    FROM {{q .Table}} AS t
    WHERE t.{{q .Change}} = 'insert'
    GROUP BY {{cols "t" .Key}}
    HAVING count(*) > 1
), changes AS (
    SELECT {{cols "t" .Key}}, t.__row,
           t.{{q .Change}} = 'insert' AS is_insert,
           CASE WHEN t.{{q .Change}} = 'insert' THEN 1 WHEN t.{{q .DeleteKind}} = {{lit .DeleteAll}} THEN 0 ELSE -1 END AS delta,
           t.{{q .Change}} = 'delete' AND t.{{q .DeleteKind}} = {{lit .DeleteAll}} AS resets,
           CAST(t.{{q .Commit}} AS VARCHAR) AS commit_id,
           {{if .Checkpoint}}CAST(t.{{q .Checkpoint}} AS VARCHAR){{else}}CAST(NULL AS VARCHAR){{end}} AS checkpoint_id,
           {{loc "t" .Location}} AS location,
           {{.KeyText}} AS key_text
    FROM {{q .Table}} AS t SEMI JOIN repeated AS r ON {{match "t" "r" .Key}}
), segments AS (
    -- A delete of every row of the key starts a segment: the count before it does not matter after it.
    SELECT *, sum(CAST(resets AS INTEGER)) OVER (PARTITION BY {{cols "" .Key}} ORDER BY __row ROWS UNBOUNDED PRECEDING) AS segment
    FROM changes
), counted AS (
    SELECT *, sum(delta) OVER w AS running,
           last_value(CASE WHEN is_insert THEN commit_id END IGNORE NULLS) OVER earlier AS other_commit,
           last_value(CASE WHEN is_insert THEN location END IGNORE NULLS) OVER earlier AS other_location,
           last_value(CASE WHEN is_insert THEN checkpoint_id END IGNORE NULLS) OVER earlier AS other_checkpoint
    FROM segments
    WINDOW w AS (PARTITION BY {{cols "" .Key}}, segment ORDER BY __row ROWS UNBOUNDED PRECEDING),
           earlier AS (PARTITION BY {{cols "" .Key}}, segment ORDER BY __row ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
), floored AS (
    SELECT *, running - least(0, min(running) OVER (PARTITION BY {{cols "" .Key}}, segment ORDER BY __row ROWS UNBOUNDED PRECEDING)) AS live
    FROM counted
)
SELECT commit_id, other_commit, count(*) AS keys,
       arg_min(key_text, __row), arg_min(location, __row), arg_min(other_location, __row),
       arg_min(checkpoint_id, __row), arg_min(other_checkpoint, __row)
FROM floored
WHERE is_insert AND live >= 2
GROUP BY commit_id, other_commit
ORDER BY min(__row)
