-- statement: value_mismatches
-- description: Matched source and sink rows (one join) whose account or amount differ: one row per pair and
-- description: column, both values, the difference of amounts, both rows.
COPY (
    WITH d AS (
        SELECT s.entry_id, s.account AS sa, k.account AS ka, s.amount AS sm, k.amount AS km,
               s.rowid + 1 AS source_row, k.rowid + 1 AS sink_row
        FROM source AS s JOIN sink AS k ON s.entry_id = k.entry_id
        WHERE s.account IS DISTINCT FROM k.account OR s.amount IS DISTINCT FROM k.amount
    )
    SELECT entry_id, 'account' AS "column", sa AS source_value, ka AS sink_value, CAST(NULL AS VARCHAR) AS difference, source_row, sink_row
    FROM d WHERE sa IS DISTINCT FROM ka
    UNION ALL
    SELECT entry_id, 'amount', CAST(sm AS VARCHAR), CAST(km AS VARCHAR), CAST(km - sm AS VARCHAR), source_row, sink_row
    FROM d WHERE sm IS DISTINCT FROM km
    ORDER BY 1, 2, 6, 7
) TO {{lit (printf "%s/value_mismatches.csv" .Out)}} (FORMAT csv, HEADER true)
