-- statement: null_ids
-- description: Rows of either input whose id is NULL or empty, with their row.
COPY (
    SELECT entry_id, 'source' AS side, rowid + 1 AS row FROM source WHERE entry_id IS NULL OR entry_id = ''
    UNION ALL
    SELECT entry_id, 'sink', rowid + 1 FROM sink WHERE entry_id IS NULL OR entry_id = ''
    ORDER BY side, row
) TO {{lit (printf "%s/null_ids.csv" .Out)}} (FORMAT csv, HEADER true)
