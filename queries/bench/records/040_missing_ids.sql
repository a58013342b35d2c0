-- statement: missing_ids
-- description: Source ids with no sink row (an anti-join), with their row count, amount and first row.
COPY (
    SELECT s.entry_id, count(*) AS source_rows, sum(s.amount) AS source_amount, min(s.rowid) + 1 AS source_row
    FROM source AS s ANTI JOIN sink AS k ON s.entry_id = k.entry_id
    WHERE s.entry_id IS NOT NULL AND s.entry_id <> ''
    GROUP BY s.entry_id
    ORDER BY s.entry_id
) TO {{lit (printf "%s/missing_ids.csv" .Out)}} (FORMAT csv, HEADER true)
