-- statement: commit
-- description: Commits the transaction that records a run.
COMMIT
