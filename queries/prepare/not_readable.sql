-- fragment: not_readable
-- description: The condition that a value of column .Col cannot be compared as its comparison reads it: with .Nanos,
-- description: a nanosecond timestamp whose instant (microseconds) would drop digits; otherwise a text value, not
-- description: empty, that .Value (the column read as the other input's type, rules/compared_value.sql with
-- description: TRY_CAST) gives NULL for, or that the cast would change (rules/inexact_text.sql for .Class, a text
-- description: read as a "date", a "time" or an "instant" of microseconds: 2024-01-02 13:45:00 is no DATE
-- description: 2024-01-02, 12:00:00+05 no TIME 12:00:00, nor .1234567 the instant .123456). Such a value is an error naming file, line and value, never a NULL.
-- returns: BOOLEAN
{{q .Col}} IS NOT NULL AND {{if .Nanos}}epoch_ns({{q .Col}}) % 1000 <> 0{{else}}NULLIF(trim(CAST({{q .Col}} AS VARCHAR)), '') IS NOT NULL AND (({{.Value}}) IS NULL{{if .Class}} OR {{inexacttext (printf "CAST(%s AS VARCHAR)" (q .Col)) .Class 0 6}}{{end}}){{end}}
