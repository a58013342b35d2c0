-- statement: rollback_to_savepoint
-- description: Returns the transaction to the point before a WAL position that could not be read.
ROLLBACK TO SAVEPOINT reconcile_wal
