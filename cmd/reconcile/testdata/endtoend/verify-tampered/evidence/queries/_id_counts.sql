-- Run this over tables source and sink as loaded by reconcile before the id checks in this folder.
CREATE OR REPLACE TEMP TABLE id_counts AS
SELECT "id",
       count(*) FILTER (WHERE __side = 0) AS __source_rows,
       count(*) FILTER (WHERE __side = 1) AS __sink_rows
FROM (
    SELECT s."id", 0 AS __side FROM source AS s
    UNION ALL
    SELECT k."id", 1 AS __side FROM sink AS k
)
GROUP BY "id"
HAVING count(*) FILTER (WHERE __side = 0) <> 1 OR count(*) FILTER (WHERE __side = 1) <> 1;
