-- statement: opening_sums
-- description: For a roll-forward: the exact sum of measure .Measure in the opening, the opening's plus the source's
-- description: (the postings: what the sink, the closing balances, should hold in total) and the sink's less that,
-- description: in its arithmetic type .Type, DECIMAL(38,s): exact in any row order; an overflow is an error, never a
-- description: rounded total. An empty input sums to 0.
-- returns: one row: opening_sum, expected_sum, roll_forward_difference (each .Type)
WITH o AS (SELECT CAST(coalesce(sum({{q .Measure}}), 0) AS {{.Type}}) AS v FROM opening),
     s AS (SELECT CAST(coalesce(sum({{q .Measure}}), 0) AS {{.Type}}) AS v FROM source),
     k AS (SELECT CAST(coalesce(sum({{q .Measure}}), 0) AS {{.Type}}) AS v FROM sink)
SELECT o.v AS opening_sum, CAST(o.v + s.v AS {{.Type}}) AS expected_sum, CAST(k.v - (o.v + s.v) AS {{.Type}}) AS roll_forward_difference
FROM o, s, k
