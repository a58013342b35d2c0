-- statement: sum_balance
-- description: Exact sums of amount per account of source and sink where they differ.
WITH s AS (SELECT account, sum(amount) AS a FROM {{.Source}} GROUP BY account),
     k AS (SELECT account, sum(amount) AS a FROM {{.Sink}} GROUP BY account)
SELECT coalesce(s.account, k.account) AS account, coalesce(s.a, 0) AS source_amount, coalesce(k.a, 0) AS sink_amount,
       coalesce(k.a, 0) - coalesce(s.a, 0) AS difference_amount
FROM s FULL JOIN k ON s.account = k.account
WHERE coalesce(s.a, 0) <> coalesce(k.a, 0)
