-- statement: snapshot_facts
-- description: What an auditor needs to say "as of what" the rows were read,
-- description: run in the read's transaction just after it opened: the server
-- description: version (ending in -MariaDB on MariaDB), the UTC time, the
-- description: session's and the system's time zones, whether binary logging
-- description: is on, and the character set of results.
-- returns: version, utc_now (RFC 3339), session_time_zone, system_time_zone, log_bin, character_set_results
SELECT VERSION(), DATE_FORMAT(UTC_TIMESTAMP(6), '%Y-%m-%dT%H:%i:%s.%fZ'), @@session.time_zone,
  @@global.system_time_zone, @@global.log_bin, @@session.character_set_results
