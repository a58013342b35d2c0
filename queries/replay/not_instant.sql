-- fragment: not_instant
-- description: The condition that a value of column .Col (DuckDB type .Type) is given but cannot be read as an
-- description: instant (rules/instant.sql, zone-less values in .Zone), or, with .Finite (an event time, a window
-- description: edge), reads as infinity or -infinity: no point in time (its epoch is NULL: the event would fall in
-- description: no window, unsaid). Blank text is no timestamp either (it stopped the re-performance on DuckDB's
-- description: conversion error, naming no row). The first such row stops the run. A TIMESTAMP WITH TIME ZONE is an instant
-- description: already: only infinity is looked for, with .Finite.
-- returns: BOOLEAN
{{if eq .Type "TIMESTAMP WITH TIME ZONE" -}}
{{if .Finite}}{{q .Col}} IS NOT NULL AND NOT isfinite({{q .Col}}){{else}}FALSE{{end}}
{{- else}}{{$i := instant (q .Col) .Type .Zone true -}}
{{q .Col}} IS NOT NULL AND (({{$i}}) IS NULL{{if .Finite}} OR NOT isfinite({{$i}}){{end}})
{{- end}}
