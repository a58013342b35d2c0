-- fragment: unscaled
-- description: The exact decimal .Value as its unscaled integer, a DECIMAL(38,0) (-12.50 as DECIMAL(38,2) is -1250), in
-- description: Trino's dialect: its text without the point, which for a DECIMAL holds every digit of its scale — the
-- description: rule of queries/rules/unscaled.sql, whose HUGEINT Trino does not have. Template helper unscaled.
-- returns: DECIMAL(38,0)
CAST(replace(CAST({{.Value}} AS VARCHAR), '.', '') AS DECIMAL(38,0))
