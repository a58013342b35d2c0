-- statement: null_ids
-- description: Check null_ids (queries/010_null_ids.sql) in Trino's dialect: the rows whose id is NULL or empty
-- description: (every part of a composite id). file is the row's data file or table, line NULL (Trino does not tell a
-- description: row's position).
-- returns: the id columns, side, file, line
SELECT {{cols "s" .ID}}, 'source' AS side, s.__file AS file, s.__line AS line
FROM source AS s
WHERE {{nullid "s" .ID}}
UNION ALL
SELECT {{cols "k" .ID}}, 'sink', k.__file, k.__line
FROM sink AS k
WHERE {{nullid "k" .ID}}
