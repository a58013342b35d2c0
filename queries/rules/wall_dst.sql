-- fragment: wall_dst
-- description: The rule that wall-clock time .Wall (a TIMESTAMP expression; NULL never is) read in zone .Zone is one
-- description: that its DST changes skip (.Check "gap": no instant has that reading, and ICU would move it by the
-- description: change: 2024-03-31 02:30 in Europe/Berlin) or show twice (.Check "repeat": the instant ICU picks has
-- description: another of the same reading, the day's change of offset away: 2024-10-27 02:30 there). Such a time
-- description: names no one instant, so it is refused wherever a wall-clock time is read as an instant (IANA tz
-- description: database rules, as ICU applies them). The offset at an instant is its reading in .Zone less its
-- description: reading in UTC; the change is the offset a day later less the offset a day earlier. With .ZoneSQL
-- description: the zone is that expression, row by row (a zone named in the value itself), instead of .Zone.
-- returns: BOOLEAN
{{$w := .Wall}}{{$z := lit .Zone}}{{if .ZoneSQL}}{{$z = .ZoneSQL}}{{end}}{{$i := printf "timezone(%s, %s)" $z $w -}}
{{$off := printf "((timezone(%s, %s + INTERVAL 1 DAY) - timezone('UTC', %s + INTERVAL 1 DAY)) - (timezone(%s, %s - INTERVAL 1 DAY) - timezone('UTC', %s - INTERVAL 1 DAY)))" $z $i $i $z $i $i -}}
({{$w}} IS NOT NULL AND
{{- if eq .Check "gap"}} timezone({{$z}}, {{$i}}) <> {{$w}})
{{- else}} {{$off}} <> INTERVAL 0 SECONDS
    AND (timezone({{$z}}, {{$i}} + {{$off}}) = {{$w}} OR timezone({{$z}}, {{$i}} - {{$off}}) = {{$w}}))
{{- end}}
