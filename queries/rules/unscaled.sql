-- fragment: unscaled
-- description: The exact decimal .Value as its unscaled integer, a HUGEINT (-12.50 as DECIMAL(38,2) is -1250): its
-- description: text without the point, which for a DECIMAL holds every digit of its scale. Two values of one type
-- description: have one scale, so the ratio of their unscaled integers is theirs (rules/percent_of.sql). Template
-- description: helper unscaled.
-- returns: HUGEINT
CAST(replace(CAST({{.Value}} AS VARCHAR), '.', '') AS HUGEINT)
