-- check: population
-- assertion: completeness, accuracy
-- description: The source and the sink each hold records: a control over an empty input proves nothing (the night
-- description: the partition never arrived passes every other check). An exception is an input with no records,
-- description: unless the spec's allow_empty: declares that legitimate for it.
-- writes: side, records
-- scope: allow_empty
SELECT side, n AS records
FROM (SELECT 'source' AS side, count(*) AS n FROM source
      UNION ALL
      SELECT 'sink', count(*) FROM sink
{{- if .Opening}}
      UNION ALL
      SELECT 'opening', count(*) FROM opening
{{- end}}) AS p
WHERE n = 0 AND NOT list_contains({{litlist .AllowEmpty}}::VARCHAR[], side)
