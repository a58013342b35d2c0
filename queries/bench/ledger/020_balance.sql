-- statement: balance
-- description: The balance control written by hand: the postings summed and counted per account (GROUP BY), a
-- description: full join with the balances, every account whose sum differs (an account on one side only has
-- description: the other side's sum 0) with source sum, postings behind it, balance, difference and the
-- description: difference as a percentage of the source sum; COPY'd to CSV.
COPY (
    WITH s AS (SELECT aid, count(*) AS postings, CAST(sum(delta) AS DECIMAL(38,2)) AS a FROM source GROUP BY aid)
    SELECT coalesce(s.aid, k.aid) AS aid,
           coalesce(s.a, 0) AS source_delta, coalesce(s.postings, 0) AS source_postings,
           coalesce(k.abalance, 0) AS sink_delta,
           coalesce(k.abalance, 0) - coalesce(s.a, 0) AS difference_delta,
           CASE WHEN coalesce(s.a, 0) <> 0 THEN (coalesce(k.abalance, 0) - coalesce(s.a, 0)) * 100 / s.a END AS difference_pct_delta
    FROM s FULL JOIN sink AS k ON s.aid = k.aid
    WHERE coalesce(s.a, 0) <> coalesce(k.abalance, 0)
    ORDER BY 1
) TO {{lit (printf "%s/sum_balance.csv" .Out)}} (FORMAT csv, HEADER true)
