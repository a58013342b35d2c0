-- statement: export_snapshot
-- description: Exports the snapshot of the first input's REPEATABLE READ transaction (run after as_of, outside any
-- description: savepoint: a subtransaction cannot export), so that a later input of the run in the same database
-- description: imports it and reads as of the same instant. The id stays valid while this transaction is open.
-- returns: snapshot_id text
SELECT pg_export_snapshot()
