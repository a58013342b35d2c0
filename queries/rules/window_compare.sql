-- fragment: window_compare
-- description: The comparison of one aggregate of a window and group with its re-performed value .Expected, exact
-- description: (decimal, NULL-safe): whether each compared sink row (.Rows, a list) equals it, whether their sum
-- description: (.Sum) does, and whether the sum is above it. Template helper windowcompare; read by
-- description: window_agrees and window_finding.
-- returns: each_row_equals_expected BOOLEAN, sum_equals_expected BOOLEAN, sum_above BOOLEAN
coalesce(list_bool_and(list_transform({{.Rows}}, x -> x IS NOT DISTINCT FROM {{.Expected}})), FALSE) AS each_row_equals_expected,
           {{.Sum}} IS NOT DISTINCT FROM {{.Expected}} AS sum_equals_expected,
           {{.Sum}} > {{.Expected}} AS sum_above
