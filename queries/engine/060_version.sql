-- statement: version
-- description: The version of the embedded DuckDB library, such as v1.5.6.
-- returns: one VARCHAR
SELECT version()
