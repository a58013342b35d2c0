-- statement: release_savepoint
-- description: Ends the savepoint once the WAL position is read (or known to be unavailable).
RELEASE SAVEPOINT reconcile_wal
