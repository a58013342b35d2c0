-- fragment: within_tolerance
-- description: The rule that the difference d = .Sink − .Source of two values is within tolerance .T (a
-- description: checks.ToleranceSQL), exactly: absolute, |d| ≤ the amount, both in .T.Decimal; relative, |d| ≤
-- description: |.Source| × the fraction (0.1% is 0.001), both in .T.Product — computed on the source value; a
-- description: duration, instants at most .T.Micros microseconds apart (dates: whole days). An overflow is an error,
-- description: never a rounded comparison. NULL on either side gives NULL: never within tolerance. Template helper
-- description: within.
-- returns: BOOLEAN
{{ $t := .T}}
{{- if not $t}}CAST(NULL AS BOOLEAN)
{{- else if eq $t.Kind "absolute"}}abs(CAST({{.Sink}} - {{.Source}} AS {{sqltype $t.Decimal}})) <= CAST({{lit $t.Amount}} AS {{sqltype $t.Decimal}})
{{- else if eq $t.Kind "relative"}}CAST(abs({{.Sink}} - {{.Source}}) AS {{sqltype $t.Product}}) <= CAST(abs({{.Source}}) * CAST({{lit $t.Amount}} AS {{sqltype $t.Fraction}}) AS {{sqltype $t.Product}})
{{- else if $t.Days}}abs(date_diff('day', {{.Source}}, {{.Sink}})) * 86400000000 <= {{$t.Micros}}
{{- else}}abs(epoch_us({{.Sink}}) - epoch_us({{.Source}})) <= {{$t.Micros}}
{{- end}}
