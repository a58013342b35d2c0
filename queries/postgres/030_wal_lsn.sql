-- statement: wal_lsn
-- description: The server's WAL position when the read's snapshot was taken:
-- description: pg_current_wal_lsn() on a primary, pg_last_wal_replay_lsn() on
-- description: a standby (Standby).
SELECT {{if .Standby}}pg_last_wal_replay_lsn(){{else}}pg_current_wal_lsn(){{end}}::text
