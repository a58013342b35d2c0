-- statement: id_rows
-- description: How many rows of table .Table have a record id (.ID): null and empty ids left out, as
-- description: distinct_ids.sql leaves them out. With .Exceptions (the exception table of a check with "-- totals:
-- description: null_ids": one row, with column side, for every row of either input whose id is NULL or empty, by
-- description: the same rule, nullid), the rows of .Table less those of side .Side, without reading the ids again.
-- returns: one BIGINT
{{if .Exceptions -}}
SELECT (SELECT count(*) FROM {{q .Table}}) - (SELECT count(*) FROM {{q .Exceptions}} WHERE side = {{lit .Side}})
{{- else -}}
SELECT count(*) FROM {{q .Table}} WHERE NOT {{nullid "" .ID}}
{{- end}}
