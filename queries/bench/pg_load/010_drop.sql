-- statement: drop
-- description: Drops the benchmark's PostgreSQL tables .Source and .Sink, if a previous run left them.
DROP TABLE IF EXISTS {{q .Source}}, {{q .Sink}}
