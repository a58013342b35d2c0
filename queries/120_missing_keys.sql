-- check: missing_keys
-- assertion: completeness
-- description: Windows and groups with source events but no sink row: windows never flushed (or lost), with the
-- description: re-performed values and the number of source events.
-- requires: reperform
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, first_source_location=location, expected_*=source
SELECT {{replaykey "e" .Replay.GroupBy}},
       e.__events AS source_events,
{{- range .Replay.Aggregates}}
       e.{{q .Column}} AS {{name "expected_" .Column}},
{{- end}}
       s.__file || {{locsep $.SourceLocation}} || s.__line AS first_source_location
FROM expected AS e
JOIN source AS s ON s.__row = e.__first_row
WHERE NOT EXISTS (SELECT 1 FROM replay_sink AS k WHERE {{replaymatch "k" "e" .Replay.GroupBy}})
