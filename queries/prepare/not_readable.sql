-- fragment: not_readable
-- description: The condition that a value of column .Col cannot be compared as its comparison reads it: with .Nanos,
-- description: a nanosecond timestamp whose instant (microseconds) would drop digits; otherwise a text value, not
-- description: empty, that .Value (the column read as the other input's type, rules/compared_value.sql with
-- description: TRY_CAST) gives NULL for. Such a value is an error naming file, line and value, never a NULL.
-- returns: BOOLEAN
{{q .Col}} IS NOT NULL AND {{if .Nanos}}epoch_ns({{q .Col}}) % 1000 <> 0{{else}}NULLIF(trim(CAST({{q .Col}} AS VARCHAR)), '') IS NOT NULL AND ({{.Value}}) IS NULL{{end}}
