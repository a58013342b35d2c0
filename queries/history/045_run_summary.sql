-- statement: run_summary
-- description: The summary.json of run .Seq of the history database .DB, as the run wrote it: the previous run's
-- description: parameters and comparison, from which Classify takes the settings each check looked with
-- description: (evidence.CheckScope).
-- returns: summary VARCHAR (JSON)
SELECT summary FROM {{q .DB}}.runs WHERE run_seq = {{.Seq}}
