-- statement: zoneless_count
-- description: How many values of column .Col of table .Table (DuckDB type .Type) carry no zone, so were read as
-- description: wall-clock time in the spec's zone (rules/zoneless.sql), for a note in the evidence.
-- returns: one BIGINT
SELECT count(*) FROM {{q .Table}} WHERE {{q .Col}} IS NOT NULL AND {{zoneless (q .Col) .Type}}
