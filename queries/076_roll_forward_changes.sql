-- check: roll_forward_changes
-- assertion: completeness
-- description: Every group opened or closed in the period of a roll-forward: present in the closing balances (the
-- description: sink) but not in the opening (opened), in the opening but not in the closing (closed), or in neither,
-- description: with postings only (postings_only), each with its opening, postings and closing per measure. For
-- description: information: opening or closing an account is not an exception in itself; roll_forward says whether
-- description: each group rolls forward.
-- requires: records, measures, group_by, opening
-- severity: info
-- columns: opening_*=opening, postings_*=source, closing_*=sink, status=finding
-- writes: source_postings
WITH rolled AS (
{{rollforward . false}}
)
SELECT {{cols "r" .GroupBy}}, r.status,
{{- range $i, $m := .Measures}} r.{{name "opening_" $m}}, r.{{name "postings_" $m}}, r.{{name "closing_" $m}},{{end}} r.source_postings
FROM rolled AS r
WHERE r.status <> 'continuing'
