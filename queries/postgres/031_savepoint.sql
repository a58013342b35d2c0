-- statement: savepoint
-- description: Marks the point the transaction returns to when reading the WAL position fails (a permission, or no
-- description: WAL on a standby), so that the read itself can go on.
SAVEPOINT reconcile_wal
