-- statement: repeated_copies
-- description: The extra copies of the repeated ids of input .Side (source or sink): Σ(row_count − 1) over the
-- description: rows of .Exceptions, the exception table of a check with "-- totals: repeated_ids" (one row per id
-- description: and input seen on more than one row, null ids left out). id_rows.sql less this is the input's count
-- description: of distinct ids, as distinct_ids.sql counts them, without grouping the ids again.
-- returns: one BIGINT
SELECT CAST(coalesce(sum(row_count - 1), 0) AS BIGINT) FROM {{q .Exceptions}} WHERE side = {{lit .Side}}
