-- statement: populations
-- description: The populations of a re-performance: source events (distinct source rows in replay_events),
-- description: windows and groups re-performed, the sink rows that are compared, and their distinct logical keys
-- description: (window end and the groups .Groups). Source events are counted without hashing every source row:
-- description: with .Once (a window no longer than its slide: tumbling, or hopping with gaps) an event is in at
-- description: most one window, so its rows are counted; else (sliding, slide .Slide < size) every event is in the
-- description: window that starts at its last slide boundary (offset .Offset), so those rows are counted.
-- returns: one row: source_events BIGINT, expected_keys BIGINT, sink_rows BIGINT, sink_distinct_keys BIGINT
SELECT (SELECT {{if .Once}}count(*){{else}}count(*) FILTER (WHERE epoch_us(__window_start) = epoch_us(__event_time) - (((epoch_us(__event_time) - {{.Offset}}) % {{.Slide}} + {{.Slide}}) % {{.Slide}})){{end}} FROM replay_events) AS source_events,
       (SELECT count(*) FROM expected) AS expected_keys,
       (SELECT count(*) FROM replay_sink WHERE __compared) AS sink_rows,
       (SELECT count(*) FROM (SELECT DISTINCT __window_end{{range .Groups}}, {{q .}}{{end}} FROM replay_sink WHERE __compared)) AS sink_distinct_keys
