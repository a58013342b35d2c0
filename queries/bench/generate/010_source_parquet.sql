-- statement: source_parquet
-- description: The benchmark's source records (cmd/reconcile-bench): .Rows ledger entries, entry i with id
-- description: E<i, 10 digits>, account ACC-<i mod 200>, an amount DECIMAL(18,2) drawn from hash(i, .Seed), in
-- description: the order of i; written as Parquet to .Path.
COPY (
    SELECT printf('E%010d', i) AS entry_id,
           printf('ACC-%03d', i % 200) AS account,
           CAST(printf('%d.%02d', CAST(hash(i, {{.Seed}}) % 400000 AS BIGINT) // 100 - 2000, CAST(hash(i, {{.Seed}}) % 100 AS BIGINT)) AS DECIMAL(18,2)) AS amount
    FROM range({{.Rows}}) AS t(i)
) TO {{lit .Path}} (FORMAT parquet)
