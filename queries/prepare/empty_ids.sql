-- statement: empty_ids
-- description: How many source and sink rows hold empty text in id (or group) column .Col. CSV cannot tell an
-- description: empty field from a missing one (DuckDB reads both as NULL), NDJSON and PostgreSQL can, so an empty
-- description: text id is made NULL on both sides and a note says how many there were.
-- returns: one BIGINT
SELECT (SELECT count(*) FROM source WHERE CAST({{q .Col}} AS VARCHAR) = '') + (SELECT count(*) FROM sink WHERE CAST({{q .Col}} AS VARCHAR) = '')
