-- statement: exception_count
-- description: How many exception rows table .Table holds: all of them, never a sample. With .Within (the check's
-- description: BOOLEAN column of role within_tolerance), the rows within a declared tolerance are counted apart: they
-- description: are listed, not exceptions.
-- returns: one row: exceptions BIGINT, within_tolerance BIGINT (0 without .Within)
SELECT {{if .Within}}count(*) FILTER (WHERE {{q .Within}} IS NOT TRUE), count(*) FILTER (WHERE {{q .Within}}){{else}}count(*), 0{{end}} FROM {{q .Table}}
