-- fragment: interval_key
-- description: An id or group column .Col compared as intervals (checks.MethodInterval), as the text it is matched
-- description: by: the INTERVAL rendered by DuckDB (1 month, 30 days, 720:00:00, 1 year 2 months 3 days
-- description: 04:05:06.5), which names its months, days and microseconds apart, so that ids match field by field
-- description: (DuckDB's own equality, GROUP BY and joins would take '1 month' for '30 days'). With .Text the
-- description: column is text, read as an INTERVAL first (every value a plain duration: rules/inexact_text.sql,
-- description: checked before); an empty text is NULL.
-- returns: VARCHAR
CAST({{if .Text}}CAST(NULLIF(trim(CAST({{q .Col}} AS VARCHAR)), '') AS INTERVAL){{else}}{{q .Col}}{{end}} AS VARCHAR)
