-- statement: replay_sink
-- description: Table replay_sink: every sink row with its window as instants (the sink's window column .Window
-- description: read by rules/instant.sql, the other edge .Size microseconds away), its group, its aggregates as
-- description: exact decimals (a DECIMAL or integer column that converts without a value changing, .Exact, cast
-- description: as stored; any other read from its trimmed text, rules/text_decimal.sql), its checkpoint id as written and as a number (__epoch, the epoch of the write), its
-- description: watermark and emission, and __compared: the row is its key's emission that counts (with last_by:
-- description: the greatest emission, compared as a number when it is one, else as text; ISO timestamps sort as
-- description: text).
-- returns: table replay_sink (__row, __file, __line, __window_start, __window_end, <group columns>, <aggregate
-- returns: columns as DECIMAL(38,s)>, __checkpoint VARCHAR, __epoch BIGINT, __watermark TIMESTAMPTZ,
-- returns: __emission VARCHAR, __compared BOOLEAN)
CREATE OR REPLACE TABLE {{q .Table}} AS
SELECT *, {{if .LastBy}}dense_rank() OVER (PARTITION BY __window_end{{range .Groups}}, {{q .Name}}{{end}} ORDER BY TRY_CAST(trim(__emission) AS DECIMAL(38,9)) DESC NULLS LAST, __emission DESC NULLS LAST) = 1{{else}}TRUE{{end}} AS __compared FROM (SELECT __row, __file, __line, {{$w := instant (q .Window) .WindowType .Zone false -}}
{{if eq .Edge "start"}}{{$w}} AS __window_start, make_timestamptz(epoch_us({{$w}}) + {{.Size}}) AS __window_end
{{- else}}make_timestamptz(epoch_us({{$w}}) - {{.Size}}) AS __window_start, {{$w}} AS __window_end{{end}}
{{- range .Groups}}, {{if .AsText}}CAST({{q .Name}} AS VARCHAR){{else}}{{q .Name}}{{end}} AS {{q .Name}}{{end}}
{{- range .Aggregates}}, {{if .Exact}}CAST({{q .Column}} AS {{.Type}}){{else}}{{textdecimal (printf "trim(CAST(%s AS VARCHAR))" (q .Column)) .Type "CAST"}}{{end}} AS {{q .Column}}{{end}}, {{if .Checkpoint -}}
CAST({{q .Checkpoint}} AS VARCHAR) AS __checkpoint, TRY_CAST(trim(CAST({{q .Checkpoint}} AS VARCHAR)) AS BIGINT) AS __epoch
{{- else}}CAST(NULL AS VARCHAR) AS __checkpoint, CAST(NULL AS BIGINT) AS __epoch{{end}}, {{if .Watermark -}}
{{instant (q .Watermark) .WatermarkType .Zone false}} AS __watermark
{{- else}}CAST(NULL AS TIMESTAMPTZ) AS __watermark{{end}}, {{if .LastBy -}}
CAST({{q .LastBy}} AS VARCHAR) AS __emission
{{- else}}CAST(NULL AS VARCHAR) AS __emission{{end}} FROM sink)
