-- statement: format_time
-- description: Converts the text Column to its declared Type (DATE,
-- description: TIMESTAMP, TIMESTAMP WITH TIME ZONE) with DuckDB's strptime
-- description: and the strftime Pattern, once format_check found every value
-- description: to match it.
ALTER TABLE {{q .Table}} ALTER COLUMN {{q .Column}} SET DATA TYPE {{sqltype .Type}}
USING CAST(strptime({{q .Column}}, {{lit .Pattern}}) AS {{sqltype .Type}})
