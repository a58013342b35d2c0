-- statement: missing_ids
-- description: Source ids with no sink row (NOT EXISTS, an anti-join), with row count, amount and first file.
SELECT s.entry_id, count(*) AS source_rows, sum(s.amount) AS source_amount, min(s."$path") AS source_file
FROM {{.Source}} AS s
WHERE s.entry_id <> '' AND NOT EXISTS (SELECT 1 FROM {{.Sink}} AS k WHERE k.entry_id = s.entry_id)
GROUP BY s.entry_id
