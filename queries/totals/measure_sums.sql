-- statement: measure_sums
-- description: The exact sum of measure .Measure in source and sink and their difference (sink - source), in its
-- description: arithmetic type .Type, DECIMAL(38,s): exact in any row order; an overflow is an error, never a
-- description: rounded total. An empty side sums to 0.
-- returns: one row: source_sum, sink_sum, difference (each .Type)
WITH s AS (SELECT CAST(coalesce(sum({{q .Measure}}), 0) AS {{.Type}}) AS v FROM source),
     k AS (SELECT CAST(coalesce(sum({{q .Measure}}), 0) AS {{.Type}}) AS v FROM sink)
SELECT s.v AS source_sum, k.v AS sink_sum, CAST(k.v - s.v AS {{.Type}}) AS difference FROM s, k
