-- statement: value_mismatches
-- description: Matched rows (one join) whose account or amount differ: one row per pair and column.
COPY (
    WITH d AS MATERIALIZED (
        SELECT s.entry_id, s.account AS sa, k.account AS ka, s.amount AS sm, k.amount AS km,
               s.ctid::text AS source_row, k.ctid::text AS sink_row
        FROM {{q .Source}} AS s JOIN {{q .Sink}} AS k ON s.entry_id = k.entry_id
        WHERE s.account IS DISTINCT FROM k.account OR s.amount IS DISTINCT FROM k.amount
    )
    SELECT entry_id, 'account' AS "column", sa AS source_value, ka AS sink_value, NULL::text AS difference, source_row, sink_row
    FROM d WHERE sa IS DISTINCT FROM ka
    UNION ALL
    SELECT entry_id, 'amount', sm::text, km::text, (km - sm)::text, source_row, sink_row
    FROM d WHERE sm IS DISTINCT FROM km
    ORDER BY 1, 2, 6, 7
) TO STDOUT (FORMAT csv, HEADER true)
