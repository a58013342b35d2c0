-- check: missing_keys
-- assertion: completeness
-- description: Windows and groups with source events but no sink row: windows never flushed (or lost), with the
-- description: re-performed values and the number of source events.
-- requires: reperform
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, first_source_location=location, expected_*=source
-- writes: source_events
WITH m AS (
    SELECT e.*
    FROM expected AS e
    WHERE NOT EXISTS (SELECT 1 FROM replay_sink AS k WHERE {{replaymatch "k" "e" .Replay.GroupBy}})
), f AS (
    -- The first source event of the missing keys only: the events are read again only when a key is missing.
    SELECT {{replaygroup "ev" .Replay.GroupBy}}, min(ev.__row) AS __first_row
    FROM replay_events AS ev
    SEMI JOIN m ON {{replaysame "ev" "m" .Replay.GroupBy}}
    GROUP BY {{replaygroup "ev" .Replay.GroupBy}}
)
SELECT {{replaykey "m" .Replay.GroupBy}},
       m.__events AS source_events,
{{- range .Replay.Aggregates}}
       m.{{q .Column}} AS {{name "expected_" .Column}},
{{- end}}
       s.__file || {{locsep $.SourceLocation}} || s.__line AS first_source_location
FROM m
JOIN f ON {{replaysame "f" "m" .Replay.GroupBy}}
JOIN source AS s ON s.__row = f.__first_row
