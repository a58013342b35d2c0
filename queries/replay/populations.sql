-- statement: populations
-- description: The populations of a re-performance: source events (the events in a window: each is counted in the
-- description: window starting at its last slide boundary, expected.__source_events, without reading the events
-- description: again), windows and groups re-performed, the sink rows that are compared, and their distinct logical
-- description: keys (window end and the groups .Groups).
-- returns: one row: source_events BIGINT, expected_keys BIGINT, sink_rows BIGINT, sink_distinct_keys BIGINT
SELECT (SELECT CAST(coalesce(sum(__source_events), 0) AS BIGINT) FROM expected) AS source_events,
       (SELECT count(*) FROM expected) AS expected_keys,
       (SELECT count(*) FROM replay_sink WHERE __compared) AS sink_rows,
       (SELECT count(*) FROM (SELECT DISTINCT __window_end{{range .Groups}}, {{q .}}{{end}} FROM replay_sink WHERE __compared)) AS sink_distinct_keys
