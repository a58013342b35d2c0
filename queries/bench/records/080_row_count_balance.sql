-- statement: row_count_balance
-- description: Row counts per account of source and sink (a full join of two GROUP BYs) where they differ.
COPY (
    WITH s AS (SELECT account, count(*) AS n FROM source GROUP BY account),
         k AS (SELECT account, count(*) AS n FROM sink GROUP BY account)
    SELECT coalesce(s.account, k.account) AS account, coalesce(s.n, 0) AS source_rows, coalesce(k.n, 0) AS sink_rows,
           coalesce(k.n, 0) - coalesce(s.n, 0) AS difference
    FROM s FULL JOIN k ON s.account IS NOT DISTINCT FROM k.account
    WHERE coalesce(s.n, 0) <> coalesce(k.n, 0)
    ORDER BY 1
) TO {{lit (printf "%s/row_count_balance.csv" .Out)}} (FORMAT csv, HEADER true)
