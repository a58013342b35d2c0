-- statement: windows_parquet
-- description: The windowed sink re-performed by the benchmark: the events of .From aggregated per account and
-- description: event-time window of .Size microseconds sliding by .Slide (tumbling when equal), window_end,
-- description: revenue = sum(amount), events = count(*), checkpoint_id = the window's hour; two windows' revenue
-- description: altered by one cent (a wrong aggregate) and four rows written again under the next checkpoint (a
-- description: replay); written as Parquet to .Path, ordered by window and account.
COPY (
    WITH ev AS (
        SELECT account, amount, epoch_us(event_time) AS ts FROM read_parquet({{lit .From}})
    ), w AS (
        SELECT account, amount, ts, ts - ts % {{.Slide}} - k * {{.Slide}} AS ws
        FROM ev CROSS JOIN range(0, {{.Windows}}) AS t(k)
    ), agg AS (
        SELECT account, ws, sum(amount) AS revenue, count(*) AS events,
               row_number() OVER (ORDER BY ws, account) AS n
        FROM w WHERE ws + {{.Size}} > ts GROUP BY account, ws
    )
    SELECT account, make_timestamptz(ws + {{.Size}}) AS window_end,
           CAST(revenue + CASE WHEN n IN (100, 2000) THEN 0.01 ELSE 0 END AS DECIMAL(18,2)) AS revenue,
           events, ws // 3600000000 + c AS checkpoint_id
    FROM (SELECT *, unnest(CASE WHEN n IN (50, 51, 3000, 3001) THEN [0, 1] ELSE [0] END) AS c FROM agg)
    ORDER BY ws, account, c
) TO {{lit .Path}} (FORMAT parquet)
