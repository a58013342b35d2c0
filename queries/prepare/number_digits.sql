-- statement: number_digits
-- description: The digits the values of column .Col of table .Table actually hold, read from each value's text
-- description: (a DECIMAL or integer rendered by DuckDB, a text measure as written): the integer digits without
-- description: leading zeros, the fraction digits as written, and the fraction digits without trailing zeros. For a
-- description: measure or a compared number whose declared types together need more than 38 digits, so the common
-- description: exact DECIMAL is sized from the data rather than from the declarations.
-- returns: one row: int_digits INTEGER, scale INTEGER, significant_scale INTEGER
SELECT coalesce(max(length(ltrim(regexp_extract(CAST({{q .Col}} AS VARCHAR), '^\s*[+-]?(\d*)', 1), '0'))), 0) AS int_digits,
       coalesce(max(length(regexp_extract(CAST({{q .Col}} AS VARCHAR), '\.(\d*)\s*$', 1))), 0) AS scale,
       coalesce(max(length(rtrim(regexp_extract(CAST({{q .Col}} AS VARCHAR), '\.(\d*)\s*$', 1), '0'))), 0) AS significant_scale
FROM {{q .Table}}
