-- statement: missing_ids
-- description: Source ids with no sink row (NOT EXISTS, an anti-join), with row count, amount and first row.
COPY (
    SELECT s.entry_id, count(*) AS source_rows, sum(s.amount) AS source_amount, min(s.ctid)::text AS source_row
    FROM {{q .Source}} AS s
    WHERE s.entry_id <> '' AND NOT EXISTS (SELECT 1 FROM {{q .Sink}} AS k WHERE k.entry_id = s.entry_id)
    GROUP BY s.entry_id
    ORDER BY s.entry_id
) TO STDOUT (FORMAT csv, HEADER true)
