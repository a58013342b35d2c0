-- fragment: wall_clock
-- description: The condition that a value of column .Col (DuckDB type .Type), read as wall-clock time in zone
-- description: .Zone to be an instant (rules/instant.sql), is a time that a DST change of .Zone skips (.Check "gap")
-- description: or shows twice (.Check "repeat"; rules/wall_dst.sql): a zone-less TIMESTAMP (any precision) as its
-- description: value, text as its reading when it is neither epoch milliseconds, nor names a zone or offset, nor is a
-- description: plain date (YYYY-MM-DD, read as its day's first instant, as a DATE is). FALSE for
-- description: a TIMESTAMP WITH TIME ZONE and any other type: their instants need no zone; and for a DATE, whose
-- description: instant is its day's first (ICU's reading of a midnight a DST change skips, as in America/Santiago).
-- returns: BOOLEAN
{{if eq .Type "TIMESTAMP WITH TIME ZONE"}}FALSE
{{- else if hasprefix .Type "TIMESTAMP"}}{{walldst (printf "CAST(%s AS TIMESTAMP)" (q .Col)) .Zone .Check}}
{{- else if eq .Type "VARCHAR"}}{{$t := printf "trim(%s)" (q .Col)}}{{walldst (printf "CASE WHEN %s OR %s OR regexp_full_match(%s, '\\d{4,}-\\d{2}-\\d{2}') THEN NULL ELSE TRY_CAST(%s AS TIMESTAMP) END" (epochmillis $t) (haszone $t) $t $t) .Zone .Check}}
{{- else}}FALSE
{{- end}}
