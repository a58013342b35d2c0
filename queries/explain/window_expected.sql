-- statement: window_expected
-- description: The re-performed values of the window and group asked for (table expected), and the number of
-- description: source events behind them; no row when the source has no event there.
-- returns: __events BIGINT, then one column per aggregate (DECIMAL(38,s), named as the sink column)
SELECT e.__events{{range .Aggregates}}, e.{{q .Column}}{{end}} FROM expected AS e WHERE {{windowkey "e" .Key}}
