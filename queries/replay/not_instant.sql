-- fragment: not_instant
-- description: The condition that a value of column .Col (DuckDB type .Type) is given but cannot be read as an
-- description: instant (rules/instant.sql, zone-less values in .Zone): the first such row stops the run.
-- returns: BOOLEAN
{{q .Col}} IS NOT NULL AND trim(CAST({{q .Col}} AS VARCHAR)) <> '' AND ({{instant (q .Col) .Type .Zone true}}) IS NULL
