-- statement: isolation
-- description: Makes the next transaction of the session REPEATABLE READ.
SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ
