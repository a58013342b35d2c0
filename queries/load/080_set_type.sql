-- statement: set_type
-- description: Converts Column to its declared Type (Value, the declared_value
-- description: fragment), once every value has been checked to convert
-- description: exactly (declared_type_check).
ALTER TABLE {{q .Table}} ALTER COLUMN {{q .Column}} SET DATA TYPE {{sqltype .Type}} USING {{.Value}}
