-- statement: restarts_rows
-- description: The restarts read from the restarts: files, as rows of table restarts (times in microseconds since
-- description: the Unix epoch, UTC), written as literals so the evidence can re-create the table.
INSERT INTO restarts VALUES
{{- range $i, $r := .}}{{if $i}},{{end}}
  ({{$r.No}}, {{lit $r.Label}}, make_timestamptz({{$r.Time}}), {{if $r.Known}}{{$r.Checkpoint}}{{else}}NULL{{end}}, {{if $r.HasCheckpointTime}}make_timestamptz({{$r.CheckpointTime}}){{else}}NULL{{end}}, {{if $r.Known}}{{$r.OpenEpoch}}{{else}}NULL{{end}})
{{- end}}
