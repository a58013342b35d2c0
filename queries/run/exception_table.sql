-- statement: exception_table
-- description: Table .Table (temporary, for the session): every exception row of one check, the check's rendered
-- description: SQL .Check wrapped and sorted on every column, so that two runs over the same inputs give the same
-- description: rows in the same order.
-- returns: table .Table with the check's columns
CREATE OR REPLACE TEMP TABLE {{q .Table}} AS SELECT * FROM (
{{.Check}}
) ORDER BY ALL
