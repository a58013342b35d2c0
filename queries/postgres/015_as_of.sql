-- statement: as_of
-- description: The transaction's first statement, which fixes its snapshot, and what an auditor needs to say "as
-- description: of what" the rows were read: the server's version, the database, the user, the snapshot, when the
-- description: transaction started and whether the server is a standby.
-- returns: server_version text, database name, user name, snapshot text, started timestamptz, in_recovery boolean
SELECT current_setting('server_version'), current_database(), current_user,
  pg_current_snapshot()::text, now(), pg_is_in_recovery()
