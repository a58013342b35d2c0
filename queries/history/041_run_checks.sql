-- statement: run_checks
-- description: The checks of the runs .Seqs in the history database .DB: status, exception rows, key columns and
-- description: the new, recurring and resolved keys of each.
-- returns: run_seq BIGINT, check_id VARCHAR, status VARCHAR, exceptions BIGINT, key_columns VARCHAR (a JSON list),
-- returns: compared BOOLEAN, new_keys BIGINT, recurring_keys BIGINT, resolved_keys BIGINT; sorted by run, then
-- returns: check id
SELECT run_seq, check_id, status, exceptions, to_json(key_columns) AS key_columns, compared,
       new_keys, recurring_keys, resolved_keys
FROM {{q .DB}}.run_checks
WHERE run_seq IN ({{range $i, $s := .Seqs}}{{if $i}}, {{end}}{{$s}}{{end}})
ORDER BY run_seq, check_id
