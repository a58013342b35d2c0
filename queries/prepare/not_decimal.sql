-- fragment: not_decimal
-- description: The condition that a text measure value of column .Col is not a plain decimal number: an optional
-- description: sign, digits, an optional fraction, spaces around. Exponents (1e3), thousands separators, currency
-- description: signs and NaN/Infinity are refused rather than guessed at.
-- returns: BOOLEAN
{{q .Col}} IS NOT NULL AND NOT regexp_full_match({{q .Col}}, '^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$')
