-- fragment: percent_of
-- description: A part as a percentage of a whole, given as their unscaled integers .Part and .Whole (helper unscaled),
-- description: in Trino's dialect — the rule of queries/rules/percent_of.sql: 100 × part / whole, divided exactly as
-- description: integers (the remainder taken off first, so Trino's DECIMAL division has nothing to round) and rounded
-- description: half away from zero to 6 decimal places, as DECIMAL(38,6). NULL when the whole is 0 or either is
-- description: NULL. A part beyond 10^30 units of its scale overflows DECIMAL(38): Trino's error, never a rounded
-- description: figure. Template helper percentof.
-- returns: DECIMAL(38,6)
CASE WHEN {{.Whole}} = 0 THEN CAST(NULL AS DECIMAL(38,6))
     ELSE CAST(({{.Part}} * 100000000 - {{.Part}} * 100000000 % {{.Whole}}) / {{.Whole}}
               + CASE WHEN abs({{.Part}} * 100000000 % {{.Whole}}) >= abs({{.Whole}}) - abs({{.Part}} * 100000000 % {{.Whole}})
                      THEN sign({{.Part}}) * sign({{.Whole}}) ELSE 0 END AS DECIMAL(38,0))
          * CAST(0.000001 AS DECIMAL(7,6)) END
