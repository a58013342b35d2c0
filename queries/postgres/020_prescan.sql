-- statement: prescan
-- description: Finds, in the read's snapshot and before any row is read, the
-- description: largest scale of each unconstrained numeric column (Columns) of
-- description: the input's statement (Query), which stands on lines of its own
-- description: so that a trailing -- comment cannot swallow the parenthesis.
-- description: A value's scale is the fraction digits it needs, trailing zeros
-- description: not counted (1.000 needs none): min_scale (PostgreSQL 13 and
-- description: later; MinScale), else the fraction digits of its text with
-- description: the trailing zeros trimmed (numeric's text has no exponent;
-- description: NaN and Infinity have no fraction part).
SELECT {{range $i, $c := .Columns}}{{if $i}}, {{end}}max({{if $.MinScale}}min_scale({{q $c}}){{else}}length(rtrim(split_part({{q $c}}::text, '.', 2), '0')){{end}}){{end}} FROM (
{{.Query}}
) AS reconcile_prescan
