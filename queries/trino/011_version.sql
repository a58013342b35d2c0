-- statement: version
-- description: The coordinator's Trino version.
-- returns: one varchar
SELECT version()
