-- fragment: window_key
-- description: The condition that a row of a replay table (alias .Alias: replay_events, expected or replay_sink)
-- description: belongs to the window and group asked for: its window end equals the instant .End and each group
-- description: column rendered as text equals the value as typed (.Groups). Template helper windowkey.
-- returns: BOOLEAN
{{.Alias}}.__window_end = TIMESTAMPTZ {{lit .End}}{{range .Groups}} AND CAST({{$.Alias}}.{{q .Column}} AS VARCHAR) = {{lit .Value}}{{end}}
