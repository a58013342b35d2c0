-- statement: exception_first_rows
-- description: The first .Limit exception rows of table .Table, in its order (sorted on every column), for the
-- description: reports.
-- returns: the check's columns
SELECT * FROM {{q .Table}} ORDER BY ALL LIMIT {{.Limit}}
