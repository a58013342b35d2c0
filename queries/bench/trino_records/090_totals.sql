-- statement: totals
-- description: The population totals: rows and distinct ids of each input, and the exact sum of amount in each.
SELECT (SELECT count(*) FROM {{.Source}}), (SELECT count(*) FROM {{.Sink}}),
       (SELECT count(DISTINCT entry_id) FROM {{.Source}}), (SELECT count(DISTINCT entry_id) FROM {{.Sink}}),
       (SELECT sum(amount) FROM {{.Source}}), (SELECT sum(amount) FROM {{.Sink}})
