-- statement: empty_ids
-- description: How many source and sink rows hold empty text in each id (or group) column of .Cols, all counted in
-- description: one pass over each table. CSV cannot tell an empty field from a missing one (DuckDB reads both as
-- description: NULL), NDJSON and PostgreSQL can, so an empty text id is made NULL on both sides and a note says how
-- description: many there were.
-- returns: one row: a BIGINT per column of .Cols, in order (source and sink rows together)
SELECT {{range $i, $c := .Cols}}{{if $i}}, {{end}}s.{{q (printf "n%d" $i)}} + k.{{q (printf "n%d" $i)}}{{end}}
FROM (SELECT {{range $i, $c := .Cols}}{{if $i}}, {{end}}count(*) FILTER (WHERE CAST({{q $c}} AS VARCHAR) = '') AS {{q (printf "n%d" $i)}}{{end}} FROM source) AS s,
     (SELECT {{range $i, $c := .Cols}}{{if $i}}, {{end}}count(*) FILTER (WHERE CAST({{q $c}} AS VARCHAR) = '') AS {{q (printf "n%d" $i)}}{{end}} FROM sink) AS k
