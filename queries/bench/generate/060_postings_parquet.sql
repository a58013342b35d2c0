-- statement: postings_parquet
-- description: The ledger benchmark's postings (cmd/reconcile-bench, suite ledger): .Postings postings without a
-- description: posting id, posting i to account aid = i mod .Accounts (BIGINT), teller tid = i mod 97, an amount
-- description: DECIMAL(12,2) between -2000.00 and 1999.99 drawn from hash(i, .Seed), posted_at a TIMESTAMPTZ a
-- description: millisecond per posting from 2026-11-29 00:00 UTC; in the order of i; written as Parquet to .Path.
COPY (
    SELECT i % {{.Accounts}} AS aid,
           i % 97 AS tid,
           CAST(printf('%d.%02d', CAST(hash(i, {{.Seed}}) % 400000 AS BIGINT) // 100 - 2000, CAST(hash(i, {{.Seed}}) % 100 AS BIGINT)) AS DECIMAL(12,2)) AS delta,
           make_timestamptz(1795910400000000 + i * 1000) AS posted_at
    FROM range({{.Postings}}) AS t(i)
) TO {{lit .Path}} (FORMAT parquet)
