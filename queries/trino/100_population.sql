-- statement: population
-- description: Check population (queries/005_population.sql) in Trino's dialect: the inputs with no records, unless
-- description: allow_empty: declares that legitimate.
-- returns: side, records
SELECT side, n AS records
FROM (SELECT 'source' AS side, count(*) AS n FROM source
      UNION ALL
      SELECT 'sink', count(*) FROM sink) AS p
WHERE n = 0 AND NOT contains({{litlist .AllowEmpty}}, side)
