-- statement: rollback
-- description: Abandons the transaction that records a run: the history is as it was.
ROLLBACK
