-- fragment: instant
-- description: Column or expression .Col of DuckDB type .Type read as an instant (TIMESTAMPTZ): TIMESTAMPTZ as is;
-- description: TIMESTAMP and DATE as wall-clock time in zone .Zone; integers as epoch milliseconds; text as epoch
-- description: milliseconds when all digits, as that instant when it names a zone, else as wall-clock time in .Zone.
-- description: With .Try a value that cannot be read gives NULL instead of an error. DuckDB/ICU resolves a
-- description: wall-clock time that a DST change skips or repeats to the later offset's reading. Template helper
-- description: instant.
-- returns: TIMESTAMP WITH TIME ZONE
{{if eq .Type "TIMESTAMP WITH TIME ZONE"}}{{.Col}}
{{- else if or (hasprefix .Type "TIMESTAMP") (eq .Type "DATE")}}timezone({{lit .Zone}}, CAST({{.Col}} AS TIMESTAMP))
{{- else if or (eq .Type "BIGINT") (eq .Type "INTEGER") (eq .Type "HUGEINT") (eq .Type "UBIGINT")}}make_timestamptz({{.Cast}}({{.Col}} AS BIGINT) * 1000)
{{- else}}{{$t := printf "trim(CAST(%s AS VARCHAR))" .Col}}CASE WHEN {{epochmillis $t}} THEN make_timestamptz({{.Cast}}({{$t}} AS BIGINT) * 1000)
	  WHEN {{haszone $t}} THEN {{.Cast}}({{$t}} AS TIMESTAMPTZ)
	  ELSE timezone({{lit .Zone}}, {{.Cast}}({{$t}} AS TIMESTAMP)) END
{{- end}}
