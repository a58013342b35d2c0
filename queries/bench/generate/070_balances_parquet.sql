-- statement: balances_parquet
-- description: The ledger benchmark's balances: one row per account of .From (aid, abalance DECIMAL(18,2) = the
-- description: account's sum of delta), with three kinds of planted difference: every account with aid mod 1000 =
-- description: 7 off by +0.01 (a balance edited), aid mod 1000 = 500 missing (no balance row), and 100 accounts
-- description: .Accounts .. .Accounts+99 with a balance of 1.00 and no postings; ordered by aid; Parquet to .Path.
COPY (
    SELECT aid, abalance FROM (
        SELECT aid, CAST(sum(delta) + CASE WHEN aid % 1000 = 7 THEN 0.01 ELSE 0 END AS DECIMAL(18,2)) AS abalance
        FROM read_parquet({{lit .From}})
        GROUP BY aid
        HAVING aid % 1000 <> 500
        UNION ALL
        SELECT {{.Accounts}} + i, 1.00 FROM range(100) AS t(i)
    ) ORDER BY aid
) TO {{lit .Path}} (FORMAT parquet)
