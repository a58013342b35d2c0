-- statement: import_snapshot
-- description: Makes a later input's transaction read in the snapshot the first input exported (.ID, from
-- description: export_snapshot): the first statement after BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY.
-- description: SET TRANSACTION SNAPSHOT takes no parameter, so the id is a quoted literal.
SET TRANSACTION SNAPSHOT {{lit .ID}}
