-- statement: null_ids
-- description: The checks hand-written in Trino SQL (cmd/reconcile-trino-bench, contender c): rows whose id is NULL
-- description: or empty, with their data file. .Source and .Sink are the Iceberg tables, pinned FOR VERSION AS OF.
SELECT entry_id, 'source' AS side, "$path" AS file FROM {{.Source}} WHERE entry_id IS NULL OR entry_id = ''
UNION ALL
SELECT entry_id, 'sink', "$path" FROM {{.Sink}} WHERE entry_id IS NULL OR entry_id = ''
