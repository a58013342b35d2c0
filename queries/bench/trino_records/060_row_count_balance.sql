-- statement: row_count_balance
-- description: Row counts per account of source and sink where they differ.
WITH s AS (SELECT account, count(*) AS n FROM {{.Source}} GROUP BY account),
     k AS (SELECT account, count(*) AS n FROM {{.Sink}} GROUP BY account)
SELECT coalesce(s.account, k.account) AS account, coalesce(s.n, 0) AS source_rows, coalesce(k.n, 0) AS sink_rows,
       coalesce(k.n, 0) - coalesce(s.n, 0) AS difference
FROM s FULL JOIN k ON s.account = k.account
WHERE coalesce(s.n, 0) <> coalesce(k.n, 0)
