-- statement: set_type
-- description: Converts Column to its declared Type, once every value has
-- description: been checked to convert exactly (declared_type_check).
ALTER TABLE {{q .Table}} ALTER COLUMN {{q .Column}} SET DATA TYPE {{sqltype .Type}} USING CAST({{q .Column}} AS {{sqltype .Type}})
