-- statement: measure_digits
-- description: The fraction digits (scale) and the integer digits without leading zeros that the text measure .Col
-- description: of table .Table needs, so every value fits one exact DECIMAL with nothing rounded.
-- description: In the same pass, whether any value is not a decimal number (.Cond, the not_decimal.sql
-- description: condition): only then is the table read again to name the first such value.
-- returns: one row: scale INTEGER, int_digits INTEGER, bad BOOLEAN
SELECT coalesce(max(length(regexp_extract({{q .Col}}, '\.(\d*)\s*$', 1))), 0) AS scale,
       coalesce(max(length(ltrim(regexp_extract({{q .Col}}, '^\s*[+-]?(\d*)', 1), '0'))), 0) AS int_digits,
       coalesce(bool_or({{.Cond}}), FALSE) AS bad
FROM {{q .Table}}
