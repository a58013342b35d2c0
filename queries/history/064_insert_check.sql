-- statement: insert_check
-- description: Records one check of run .Seq in the history database .DB: its id .Check, status .Status,
-- description: .Exceptions rows, key columns .KeyColumns, whether it was compared with the previous run and its
-- description: new, recurring and resolved keys.
INSERT INTO {{q .DB}}.run_checks VALUES ({{.Seq}}, {{lit .Check}}, {{lit .Status}}, {{.Exceptions}},
    CAST({{litlist .KeyColumns}} AS VARCHAR[]), {{.Compared}}, {{.New}}, {{.Recurring}}, {{.Resolved}})
