-- statement: row_count_balance
-- description: Check row_count_balance (queries/060_row_count_balance.sql) in Trino's dialect: the record counts of
-- description: source and sink, in total or per group, where they differ.
-- returns: the group columns, source_rows, sink_rows, difference
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
FROM s FULL OUTER JOIN k ON {{$.Match "s" "k" .GroupBy}}
WHERE coalesce(s.n, 0) <> coalesce(k.n, 0)
