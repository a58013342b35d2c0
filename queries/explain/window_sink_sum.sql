-- statement: window_sink_sum
-- description: The sum of the compared sink rows of the window and group asked for, per aggregate: what a
-- description: dashboard summing the rows shows.
-- returns: compared BIGINT (the rows summed), then one column per aggregate (DECIMAL(38,s))
SELECT count(*) FILTER (WHERE k.__compared) AS compared{{range .Aggregates}}, CAST(sum(k.{{q .Column}}) FILTER (WHERE k.__compared) AS {{.Type}}) AS {{q .Column}}{{end}}
FROM replay_sink AS k WHERE {{windowkey "k" .Key}}
