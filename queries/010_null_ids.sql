-- check: null_ids
-- assertion: accuracy
-- description: Source or sink rows whose id is NULL or empty (for a composite id: every part). They can be neither
-- description: matched nor counted as duplicates, so each one is an exception.
-- requires: id
-- notes: partial_null_ids
-- totals: null_ids
-- writes: side, file, line
SELECT {{cols "s" .ID}}, 'source' AS side, s.__file AS file, s.__line AS line
FROM source AS s
WHERE {{nullid "s" .ID}}
UNION ALL
SELECT {{cols "k" .ID}}, 'sink', k.__file, k.__line
FROM sink AS k
WHERE {{nullid "k" .ID}}
