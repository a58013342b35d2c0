-- fragment: zoneless
-- description: The condition that a value of column .Col (DuckDB type .Type) carries no zone or offset, so it is
-- description: read as wall-clock time in the spec's zone (see instant). Template helper zoneless.
-- returns: BOOLEAN
{{if eq .Type "TIMESTAMP WITH TIME ZONE"}}FALSE
{{- else if or (hasprefix .Type "TIMESTAMP") (eq .Type "DATE")}}TRUE
{{- else if eq .Type "VARCHAR"}}{{$t := printf "trim(%s)" .Col}}(NOT {{epochmillis $t}} AND NOT {{haszone $t}})
{{- else}}FALSE
{{- end}}
