-- statement: partial_null_ids
-- description: How many source and sink rows have a composite id (.ID) with some, but not all, parts NULL: they
-- description: are matched NULL-safely (a NULL part equals a NULL part), and the checks with
-- description: "-- notes: partial_null_ids" say so.
-- returns: one row: source_rows BIGINT, sink_rows BIGINT
SELECT (SELECT count(*) FROM source WHERE {{template "partial" .ID}}) AS source_rows,
       (SELECT count(*) FROM sink WHERE {{template "partial" .ID}}) AS sink_rows
{{- define "partial"}}({{range $i, $c := .}}{{if $i}} OR {{end}}{{q $c}} IS NULL{{end}}) AND NOT ({{range $i, $c := .}}{{if $i}} AND {{end}}{{q $c}} IS NULL{{end}}){{end}}
