-- check: null_ids
-- assertion: accuracy
-- description: Source or sink rows whose id is NULL or empty (for a composite id: every part). They can be neither
-- description: matched nor counted as duplicates, so each one is an exception.
-- requires: id
-- notes: partial_null_ids
-- totals: null_ids
-- writes: side, file, line
SELECT s."entry_id", s."leg", 'source' AS side, s.__file AS file, s.__line AS line
FROM source AS s
WHERE ((s."entry_id" IS NULL OR length(CAST(s."entry_id" AS VARCHAR)) = 0) AND (s."leg" IS NULL OR length(CAST(s."leg" AS VARCHAR)) = 0))
UNION ALL
SELECT k."entry_id", k."leg", 'sink', k.__file, k.__line
FROM sink AS k
WHERE ((k."entry_id" IS NULL OR length(CAST(k."entry_id" AS VARCHAR)) = 0) AND (k."leg" IS NULL OR length(CAST(k."leg" AS VARCHAR)) = 0))
