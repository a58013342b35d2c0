-- statement: events_parquet
-- description: The benchmark's raw events for re-performance: .Events events over the day 2026-11-26 UTC, event i
-- description: at i/.Events of the day plus up to one second of jitter (kept within the day), on one of 200
-- description: accounts drawn from hash(i, .Seed), with an amount DECIMAL(18,2); event_time is a Parquet
-- description: TIMESTAMPTZ. Written to .Path.
COPY (
    SELECT printf('V%010d', i) AS event_id,
           printf('ACC-%03d', CAST(hash(i, {{.Seed}}) % 200 AS BIGINT)) AS account,
           CAST(printf('%d.%02d', CAST(hash(i, {{.Seed}} + 1) % 40000 AS BIGINT) // 100, CAST(hash(i, {{.Seed}} + 1) % 100 AS BIGINT)) AS DECIMAL(18,2)) AS amount,
           make_timestamptz(least(1764115200000000 + i * 86400000000 // {{.Events}} + CAST(hash(i, {{.Seed}} + 2) % 1000000 AS BIGINT),
                                  1764115200000000 + 86400000000 - 1)) AS event_time
    FROM range({{.Events}}) AS t(i)
) TO {{lit .Path}} (FORMAT parquet)
