-- statement: rollback
-- description: Ends the read-only transaction once every input of the
-- description: server has been read.
ROLLBACK
