-- statement: table_columns
-- description: The declared type of each column of a table (its database is
-- description: the first argument, or the session's database when NULL; its
-- description: name the second), from the catalog: the exact COLUMN_TYPE for
-- description: the evidence and the precision and scale of DECIMAL columns,
-- description: which the result metadata gives one digit short for DECIMAL
-- description: UNSIGNED.
-- returns: COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE, in column order
SELECT COLUMN_NAME, COLUMN_TYPE, DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE
FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?
ORDER BY ORDINAL_POSITION
