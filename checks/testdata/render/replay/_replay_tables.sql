CREATE OR REPLACE VIEW "replay_events" AS
WITH ev AS (
    SELECT __row, __file, __line, CASE WHEN regexp_full_match(trim(CAST("event_time" AS VARCHAR)), '\d{10,}') THEN make_timestamptz(CAST(trim(CAST("event_time" AS VARCHAR)) AS BIGINT) * 1000)
	  WHEN regexp_matches(trim(CAST("event_time" AS VARCHAR)), '\d:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?)$') THEN CAST(trim(CAST("event_time" AS VARCHAR)) AS TIMESTAMPTZ)
	  ELSE timezone('UTC', CAST(trim(CAST("event_time" AS VARCHAR)) AS TIMESTAMP)) END AS __event_time, "region" AS "region", coalesce(CASE WHEN NOT contains(trim(CAST("amount" AS VARCHAR)), 'e') AND NOT contains(trim(CAST("amount" AS VARCHAR)), 'E') THEN TRY_CAST(trim(CAST("amount" AS VARCHAR)) AS DECIMAL(18,2)) END, CAST(trim(CAST("amount" AS VARCHAR)) AS DECIMAL(38,2))) AS "amount" FROM source
), us AS (
    SELECT *, epoch_us(__event_time) AS __ts,
           epoch_us(__event_time) - CASE WHEN epoch_us(__event_time) >= 0 THEN (epoch_us(__event_time) - 0) % 300000000
               ELSE ((epoch_us(__event_time) - 0) % 300000000 + 300000000) % 300000000 END AS __last_start
    FROM ev WHERE __event_time IS NOT NULL
), w AS (
    SELECT *, __last_start - __k * 300000000 AS __ws FROM us CROSS JOIN range(0, 2) AS t(__k)
)
SELECT __row, __file, __line, __event_time,
       make_timestamptz(__ws) AS __window_start, make_timestamptz(__ws + 600000000) AS __window_end,
       __ws AS __window_start_us, __k = 0 AS __last_window, "region", "amount"
FROM w WHERE __ws > __ts - 600000000 OR __ts IS NULL;

CREATE OR REPLACE TABLE "expected" AS
SELECT make_timestamptz(__window_start_us) AS __window_start, make_timestamptz(__window_start_us + 600000000) AS __window_end, "region", CAST("__aggregate_0" AS DECIMAL(38,2)) AS "total", CAST("__aggregate_1" AS DECIMAL(38,0)) AS "n", __events, __source_events
FROM (
    SELECT __window_start_us, "region", sum("amount") AS "__aggregate_0", count(*) AS "__aggregate_1", count(*) AS __events, count(*) FILTER (WHERE __last_window) AS __source_events
    FROM "replay_events" GROUP BY __window_start_us, "region"
);

CREATE OR REPLACE TABLE "replay_sink" AS
SELECT *, dense_rank() OVER (PARTITION BY __window_end, "region" ORDER BY TRY_CAST(trim(__emission) AS DECIMAL(38,9)) DESC NULLS LAST, __emission DESC NULLS LAST) = 1 AS __compared FROM (SELECT __row, __file, __line, make_timestamptz(epoch_us(CASE WHEN regexp_full_match(trim(CAST("window_end" AS VARCHAR)), '\d{10,}') THEN make_timestamptz(CAST(trim(CAST("window_end" AS VARCHAR)) AS BIGINT) * 1000)
	  WHEN regexp_matches(trim(CAST("window_end" AS VARCHAR)), '\d:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?)$') THEN CAST(trim(CAST("window_end" AS VARCHAR)) AS TIMESTAMPTZ)
	  ELSE timezone('UTC', CAST(trim(CAST("window_end" AS VARCHAR)) AS TIMESTAMP)) END) - 600000000) AS __window_start, CASE WHEN regexp_full_match(trim(CAST("window_end" AS VARCHAR)), '\d{10,}') THEN make_timestamptz(CAST(trim(CAST("window_end" AS VARCHAR)) AS BIGINT) * 1000)
	  WHEN regexp_matches(trim(CAST("window_end" AS VARCHAR)), '\d:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?)$') THEN CAST(trim(CAST("window_end" AS VARCHAR)) AS TIMESTAMPTZ)
	  ELSE timezone('UTC', CAST(trim(CAST("window_end" AS VARCHAR)) AS TIMESTAMP)) END AS __window_end, "region" AS "region", coalesce(CASE WHEN NOT contains(trim(CAST("total" AS VARCHAR)), 'e') AND NOT contains(trim(CAST("total" AS VARCHAR)), 'E') THEN TRY_CAST(trim(CAST("total" AS VARCHAR)) AS DECIMAL(18,2)) END, CAST(trim(CAST("total" AS VARCHAR)) AS DECIMAL(38,2))) AS "total", CAST("n" AS DECIMAL(38,0)) AS "n", CAST("checkpoint_id" AS VARCHAR) AS __checkpoint, TRY_CAST(trim(CAST("checkpoint_id" AS VARCHAR)) AS BIGINT) AS __epoch, CASE WHEN regexp_full_match(trim(CAST("watermark" AS VARCHAR)), '\d{10,}') THEN make_timestamptz(CAST(trim(CAST("watermark" AS VARCHAR)) AS BIGINT) * 1000)
	  WHEN regexp_matches(trim(CAST("watermark" AS VARCHAR)), '\d:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?)$') THEN CAST(trim(CAST("watermark" AS VARCHAR)) AS TIMESTAMPTZ)
	  ELSE timezone('UTC', CAST(trim(CAST("watermark" AS VARCHAR)) AS TIMESTAMP)) END AS __watermark, CAST("emit_seq" AS VARCHAR) AS __emission FROM sink);
