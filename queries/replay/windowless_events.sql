-- statement: windowless_events
-- description: How many groups of table .Table (expected.sql) have no window: their events' time is infinity (a
-- description: TIMESTAMP WITH TIME ZONE whose epoch_us is NULL, kept so by replay_events.sql). Any such group
-- description: stops the run (checks.PrepareReplay names the first event).
-- returns: one BIGINT
SELECT count(*) FROM {{q .Table}} WHERE __window_start IS NULL
