-- statement: as_text
-- description: Any query's rows with every value rendered as text by DuckDB (NULL stays NULL), for small results
-- description: shown to people: decimals keep their scale, timestamps their zone.
SELECT COLUMNS(*)::VARCHAR FROM ({{.}})
