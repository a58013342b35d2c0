-- statement: reperformance
-- description: The hand-written re-performance (cmd/reconcile-bench): the raw events of .Events bucketed into
-- description: event-time windows of .Size microseconds sliding by .Slide (.Windows = size / slide; tumbling when 1:
-- description: epoch_us(event_time) // size; sliding: each window start computed once and filtered after the cross
-- description: join: 0.6–0.7 of the time of a filter restating the start, 10 M events, three runs side by side),
-- description: summed and counted per account and window (GROUP BY), fully joined
-- description: against the sink .Sink summed per key; every key whose revenue or event count differs is written.
COPY (
    WITH ev AS (
        SELECT account, amount, epoch_us(event_time) AS ts FROM read_parquet({{lit .Events}})
    ), w AS (
{{- if eq .Windows 1}}
        SELECT account, amount, ts // {{.Size}} * {{.Size}} AS ws FROM ev
{{- else}}
        SELECT account, amount, ws FROM (
            SELECT account, amount, ts, ts - ts % {{.Slide}} - k * {{.Slide}} AS ws
            FROM ev CROSS JOIN range(0, {{.Windows}}) AS t(k)
        ) WHERE ws > ts - {{.Size}}
{{- end}}
    ), e AS (
        SELECT account, make_timestamptz(ws + {{.Size}}) AS window_end, sum(amount) AS revenue, count(*) AS events
        FROM w GROUP BY account, ws
    ), k AS (
        SELECT account, window_end, sum(revenue) AS revenue, sum(events) AS events, count(*) AS sink_rows
        FROM read_parquet({{lit .Sink}}) GROUP BY account, window_end
    )
    SELECT coalesce(e.account, k.account) AS account, coalesce(e.window_end, k.window_end) AS window_end,
           e.revenue AS expected_revenue, k.revenue AS sink_revenue, e.events AS expected_events, k.events AS sink_events,
           k.sink_rows
    FROM e FULL JOIN k ON e.account = k.account AND e.window_end = k.window_end
    WHERE e.revenue IS DISTINCT FROM k.revenue OR e.events IS DISTINCT FROM k.events
    ORDER BY 2, 1
) TO {{lit (printf "%s/reperformance.csv" .Out)}} (FORMAT csv, HEADER true)
