-- fragment: row_text
-- description: One replay_sink row of alias .Alias as evidence text: each aggregate, the checkpoint id and the
-- description: emission when the spec names them, and the location, such as
-- description: "revenue=12.50 events=3 checkpoint=98 emission=2 at sink.csv:4". Template helper rowtext.
-- returns: VARCHAR
({{range .Replay.Aggregates}}{{lit (printf "%s=" .Column)}} || coalesce(CAST({{$.Alias}}.{{q .Column}} AS VARCHAR), 'NULL') || ' ' || {{end -}}
{{if .Replay.Checkpoint}}'checkpoint=' || coalesce({{.Alias}}.__checkpoint, 'NULL') || ' ' || {{end -}}
{{if .Replay.LastBy}}'emission=' || coalesce({{.Alias}}.__emission, 'NULL') || ' ' || {{end -}}
'at ' || {{.Alias}}.__file || {{locsep .Replay.SinkLocation}} || {{.Alias}}.__line)
