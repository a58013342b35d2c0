-- statement: null_event_times
-- description: How many source rows have no event time (column .Col): they belong to no window and are not
-- description: re-performed, as a note says.
-- returns: one BIGINT
SELECT count(*) FROM source WHERE {{q .Col}} IS NULL
