-- statement: key_spelling_counts
-- description: How many rows of the source and of the sink table key_spellings (prepare/key_spellings.sql) holds
-- description: — the rows whose normalised id or group columns were written otherwise —, of those still in the tables
-- description: (a row listed as a bad record, bad_records: report, has left them), for the note of checks.Prepare.
-- returns: one row: source BIGINT, sink BIGINT
SELECT (SELECT count(*) FROM key_spellings AS w SEMI JOIN source AS s ON s.__row = w.__row WHERE w.__side = 'source') AS source,
       (SELECT count(*) FROM key_spellings AS w SEMI JOIN sink AS k ON k.__row = w.__row WHERE w.__side = 'sink') AS sink
