-- statement: sink_parquet
-- description: The benchmark's sink: every source entry written under checkpoint i // 100000, except 1% dropped
-- description: (i mod 100 = 3), 1% replayed once more under the next checkpoint (i mod 100 = 5, the copy right
-- description: after the original) and 0.1% altered by one cent (i mod 1000 = 7); written as Parquet to .Path.
COPY (
    SELECT printf('E%010d', i) AS entry_id,
           printf('ACC-%03d', i % 200) AS account,
           CAST(printf('%d.%02d', CAST(hash(i, {{.Seed}}) % 400000 AS BIGINT) // 100 - 2000, CAST(hash(i, {{.Seed}}) % 100 AS BIGINT)) AS DECIMAL(18,2))
             + CASE WHEN i % 1000 = 7 THEN 0.01 ELSE 0 END AS amount,
           i // 100000 + c AS checkpoint_id
    FROM (SELECT i, unnest(CASE WHEN i % 100 = 3 THEN [] WHEN i % 100 = 5 THEN [0, 1] ELSE [0] END) AS c
          FROM range({{.Rows}}) AS t(i))
) TO {{lit .Path}} (FORMAT parquet)
