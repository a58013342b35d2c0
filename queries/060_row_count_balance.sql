-- check: row_count_balance
-- assertion: completeness, accuracy
-- description: Record counts of source and sink, in total or per group when group_by is given; an exception is a
-- description: total or group whose counts differ (difference = sink - source).
-- requires: records, postings
-- chart: balance
-- columns: source_rows=source, sink_rows=sink, difference=difference
WITH s AS (
    SELECT {{if .GroupBy}}{{cols "" .GroupBy}}, {{end}}count(*) AS n FROM source
    {{if .GroupBy}}GROUP BY {{cols "" .GroupBy}}{{end}}
), k AS (
    SELECT {{if .GroupBy}}{{cols "" .GroupBy}}, {{end}}count(*) AS n FROM sink
    {{if .GroupBy}}GROUP BY {{cols "" .GroupBy}}{{end}}
)
SELECT {{coalesced "s" "k" .GroupBy}}
       coalesce(s.n, 0) AS source_rows,
       coalesce(k.n, 0) AS sink_rows,
       coalesce(k.n, 0) - coalesce(s.n, 0) AS difference
FROM s FULL OUTER JOIN k ON {{match "s" "k" .GroupBy}}
WHERE coalesce(s.n, 0) <> coalesce(k.n, 0)
