-- fragment: percent_of
-- description: .Part as a percentage of .Whole, two exact decimals of one DECIMAL(p,s) type (a difference and the
-- description: sum it is a share of): 100 × part / whole, rounded half away from zero to 6 decimal places, as
-- description: DECIMAL(38,6). Both are read as their unscaled integers (their text without the point: one type, so
-- description: one scale) and divided as HUGEINTs, never through a binary float (DuckDB's DECIMAL / DECIMAL is a
-- description: DOUBLE). NULL when .Whole is 0 or either is NULL. A part beyond about 1.7 × 10^30 units of its scale
-- description: overflows: an error, never a rounded figure. Template helper percentof.
-- returns: DECIMAL(38,6)
(SELECT CASE WHEN w = 0 THEN NULL
             ELSE CAST(n // w + CASE WHEN abs(n % w) >= abs(w) - abs(n % w) THEN sign(n) * sign(w) ELSE 0 END AS DECIMAL(38,0))
                  * CAST(0.000001 AS DECIMAL(7,6)) END
 FROM (SELECT CAST(replace(CAST({{.Part}} AS VARCHAR), '.', '') AS HUGEINT) * 100000000 AS n,
              CAST(replace(CAST({{.Whole}} AS VARCHAR), '.', '') AS HUGEINT) AS w))
