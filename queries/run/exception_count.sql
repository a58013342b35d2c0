-- statement: exception_count
-- description: How many exception rows table .Table holds: all of them, never a sample.
-- returns: one BIGINT
SELECT count(*) FROM {{q .Table}}
