-- check: null_ids
-- assertion: accuracy
-- description: Source or sink rows whose id is NULL or empty (for a composite id: every part). They can be neither
-- description: matched nor counted as duplicates, so each one is an exception.
-- requires: id
SELECT s."id", 'source' AS side, s.__file AS file, s.__line AS line
FROM source AS s
WHERE ((s."id" IS NULL OR length(CAST(s."id" AS VARCHAR)) = 0))
UNION ALL
SELECT k."id", 'sink', k.__file, k.__line
FROM sink AS k
WHERE ((k."id" IS NULL OR length(CAST(k."id" AS VARCHAR)) = 0))
