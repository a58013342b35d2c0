-- statement: check_zone
-- description: Fails unless .Zone is a time zone DuckDB (ICU) knows: the spec's time_zone, checked before any
-- description: timestamp is read.
-- returns: one TIMESTAMPTZ
SELECT timezone({{lit .Zone}}, TIMESTAMP '2000-01-01')
