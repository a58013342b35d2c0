-- statement: columns
-- description: The columns of one table in order, with their DuckDB types (bind parameter: the table name).
-- returns: column_name VARCHAR, data_type VARCHAR
SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position
