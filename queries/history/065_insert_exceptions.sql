-- statement: insert_exceptions
-- description: Records every exception key of check .Check in session table .Keys as exceptions of run .Seq in the
-- description: history database .DB; a key first seen in this run gets .Seq as its first_seen_seq.
INSERT INTO {{q .DB}}.exceptions
SELECT {{.Seq}}, {{lit .Check}}, key, rows, since_last_run, coalesce(first_seen_seq, {{.Seq}}), open_runs
FROM {{q .Keys}}
