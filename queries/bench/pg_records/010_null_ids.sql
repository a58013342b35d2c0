-- statement: null_ids
-- description: The records anchor inside PostgreSQL (cmd/reconcile-bench --pg): rows whose id is NULL or empty,
-- description: with their ctid; each result is sent to the client with COPY TO STDOUT and written to a file.
COPY (
    SELECT entry_id, 'source' AS side, ctid::text AS row FROM {{q .Source}} WHERE entry_id IS NULL OR entry_id = ''
    UNION ALL
    SELECT entry_id, 'sink', ctid::text FROM {{q .Sink}} WHERE entry_id IS NULL OR entry_id = ''
    ORDER BY 2, 3
) TO STDOUT (FORMAT csv, HEADER true)
