-- statement: start_snapshot
-- description: Opens the read's transaction: read only, with InnoDB's
-- description: consistent snapshot taken at once (not at the first read), so
-- description: every input read in it sees the server as of this instant.
START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY
