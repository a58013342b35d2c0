-- statement: format_number
-- description: Rewrites the text Column, once format_check found every value
-- description: to match the declared separators, as a plain decimal: spaces
-- description: around it removed, every Thousands separator removed, the
-- description: Decimal separator made a point (1.234,50 is 1234.50). Text to
-- description: text: no value passes through a binary float.
UPDATE {{q .Table}}
SET {{q .Column}} = replace(replace(trim({{q .Column}}), {{lit .Thousands}}, ''), {{lit .Decimal}}, '.')
WHERE {{q .Column}} IS NOT NULL
