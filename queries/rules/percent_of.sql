-- fragment: percent_of
-- description: A part as a percentage of a whole, two exact decimals of one DECIMAL(p,s) type (a difference and the
-- description: sum it is a share of), given as their unscaled HUGEINTs .Part and .Whole (helper unscaled): 100 ×
-- description: part / whole, divided as HUGEINTs — never through a binary float (DuckDB's DECIMAL / DECIMAL is a
-- description: DOUBLE) — and rounded half away from zero to 6 decimal places, as DECIMAL(38,6). NULL when the whole
-- description: is 0 or either is NULL. A part beyond about 1.7 × 10^30 units of its scale overflows: an error, never
-- description: a rounded figure. Template helper percentof.
-- returns: DECIMAL(38,6)
CASE WHEN {{.Whole}} = 0 THEN CAST(NULL AS DECIMAL(38,6))
     ELSE CAST({{.Part}} * 100000000 // {{.Whole}}
               + CASE WHEN abs({{.Part}} * 100000000 % {{.Whole}}) >= abs({{.Whole}}) - abs({{.Part}} * 100000000 % {{.Whole}})
                      THEN sign({{.Part}}) * sign({{.Whole}}) ELSE 0 END AS DECIMAL(38,0))
          * CAST(0.000001 AS DECIMAL(7,6)) END
