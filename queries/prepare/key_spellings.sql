-- statement: key_spellings
-- description: Table key_spellings (temporary, for the session), built before checks.Prepare rewrites the id and
-- description: group columns with normalize: (.Keys: each column's name and normalisations) normalised: every row of
-- description: the source and of the sink whose value in one of them changes when normalised
-- description: (rules/normalized_text.sql; an empty text is NULL, as the key conversion makes it, and is no other
-- description: spelling), with __side ('source' or 'sink'), __row (the row's __row) and each such column as written,
-- description: as text. A row not in it is written as normalised. normalized_matches reads from it both spellings of
-- description: an id matched only after normalising, normalized_collisions the spellings of one id or group within one
-- description: input.
-- returns: table key_spellings (__side VARCHAR, __row BIGINT, one VARCHAR per column of .Keys)
CREATE OR REPLACE TEMP TABLE key_spellings AS
{{- range $i, $t := .Tables}}{{if $i}}
UNION ALL{{end}}
SELECT {{lit $t.Side}} AS __side, t.__row{{range $.Keys}}, CAST(t.{{q .Name}} AS VARCHAR) AS {{q .Name}}{{end}}
FROM {{q $t.Table}} AS t
WHERE {{range $j, $k := $.Keys}}{{if $j}}
   OR {{end}}{{$v := printf "NULLIF(CAST(t.%s AS VARCHAR), '')" (q $k.Name)}}{{normtext $v $k.Normalize}} IS DISTINCT FROM {{$v}}{{end}}
{{- end}}
