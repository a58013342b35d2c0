-- fragment: restart_of_key
-- description: The restart that explains a value finding of a window and group: restart_of for its first write's
-- description: epoch .Epoch, or else the earliest restart whose replayed interval holds events of the key (an
-- description: incrementing sink counts those events twice). The key is the columns window_end and .Groups of
-- description: alias .Alias. Template helper restartofkey.
-- returns: VARCHAR, the restart's label (restarts.restart)
(SELECT r.restart FROM restarts AS r
	WHERE ({{rewound "r" .Epoch}})
	   OR EXISTS (SELECT 1 FROM replay_events AS ev WHERE ev.__window_end = {{.Alias}}.window_end{{range .Groups}} AND ev.{{q .}} IS NOT DISTINCT FROM {{$.Alias}}.{{q .}}{{end}}
	              AND {{replayed "r" "ev.__event_time"}})
	ORDER BY r.restart_time LIMIT 1)
