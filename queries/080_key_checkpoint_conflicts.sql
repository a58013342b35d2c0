-- check: key_checkpoint_conflicts
-- assertion: accuracy
-- description: Sink logical keys written under more than one checkpoint id: the signature of a window or record
-- description: flushed, then replayed after a restore from an earlier checkpoint and written again. A row with no
-- description: checkpoint id counts as checkpoint NULL. For a windowed sink the key is the window as an instant (one
-- description: instant written two ways is one key) plus the group, and the emission with last_by.
-- requires: logical_key, checkpoint
-- reads: id_counts
-- chart: replayed_keys
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, checkpoint_ids=checkpoints, locations=location
-- writes: checkpoints, row_count
{{- if .Replay}}
WITH repeated AS (
    SELECT {{replaygroup "k" .Replay.GroupBy}}{{if .Replay.LastBy}}, k.__emission{{end}}
    FROM replay_sink AS k
    GROUP BY {{replaygroup "k" .Replay.GroupBy}}{{if .Replay.LastBy}}, k.__emission{{end}}
    HAVING count(*) > 1
)
SELECT {{replaykey "k" .Replay.GroupBy}},{{if .Replay.LastBy}} k.__emission AS emission,{{end}}
       count(DISTINCT coalesce(k.__checkpoint, 'NULL')) AS checkpoints,
       {{sortedlist "coalesce(k.__checkpoint, 'NULL')"}} AS checkpoint_ids,
       count(*) AS row_count,
       string_agg({{loc "k" $.SinkLocation}}, ';' ORDER BY k.__row) AS locations
FROM replay_sink AS k SEMI JOIN repeated AS r ON {{replaymatch "k" "r" .Replay.GroupBy}}
              {{- if .Replay.LastBy}} AND k.__emission IS NOT DISTINCT FROM r.__emission{{end}}
GROUP BY {{replaygroup "k" .Replay.GroupBy}}{{if .Replay.LastBy}}, k.__emission{{end}}
HAVING count(DISTINCT coalesce(k.__checkpoint, 'NULL')) > 1
{{- else}}
WITH repeated AS (
{{- if .IDCountsKey}}
    -- The logical key is the record id: its repeated values, null keys
    -- included, are those of id_counts (_id_counts.sql) on more than one
    -- sink row.
    SELECT {{cols "x" .LogicalKey}} FROM id_counts AS x WHERE x.__sink_rows > 1
{{- else}}
    SELECT {{cols "" .LogicalKey}} FROM sink GROUP BY {{cols "" .LogicalKey}} HAVING count(*) > 1
{{- end}}
)
SELECT {{cols "k" .LogicalKey}},
       count(DISTINCT {{cpid "k" .Checkpoint}}) AS checkpoints,
       {{sortedlist (cpid "k" .Checkpoint)}} AS checkpoint_ids,
       count(*) AS row_count,
       string_agg({{loc "k" $.SinkLocation}}, ';' ORDER BY k.__row) AS locations
FROM sink AS k SEMI JOIN repeated AS r ON {{match "k" "r" .LogicalKey}}
GROUP BY {{cols "k" .LogicalKey}}
HAVING count(DISTINCT {{cpid "k" .Checkpoint}}) > 1
{{- end}}
