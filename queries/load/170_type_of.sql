-- statement: type_of
-- description: The type name a declared Type (the types: option) resolves to in DuckDB, such as INTEGER for int
-- description: or DECIMAL(18,3) for DECIMAL, without reading any row; an error when DuckDB has no such type
-- description: (FOO) or refuses it (DECIMAL(5,10), whose scale exceeds its width).
SELECT typeof(CAST(NULL AS {{sqltype .Type}}))
