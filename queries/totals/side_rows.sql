-- statement: side_rows
-- description: How many rows of .Exceptions, the exception table of a check with "-- totals: null_ids" (one row,
-- description: with column side, for every row of either input whose id is NULL or empty), are of input .Side: for
-- description: an engine whose inputs are not in the session (checks.ComputeTotalsOn), the input's rows with an id
-- description: are its rows, counted by the engine, less these.
-- returns: one BIGINT
SELECT count(*) FROM {{q .Exceptions}} WHERE side = {{lit .Side}}
