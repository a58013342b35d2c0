-- statement: prescan
-- description: Finds, in the read's snapshot and before any row is read, the
-- description: largest scale of each unconstrained numeric column (Columns) of
-- description: the input's statement (Query), which stands on lines of its own
-- description: so that a trailing -- comment cannot swallow the parenthesis.
SELECT {{range $i, $c := .Columns}}{{if $i}}, {{end}}max(scale({{q $c}})){{end}} FROM (
{{.Query}}
) AS reconcile_prescan
