-- statement: gtid
-- description: The server's GTID position, read in the read's transaction
-- description: just after it opened: @@global.gtid_current_pos on MariaDB
-- description: (MariaDB), @@global.gtid_executed on MySQL.
-- returns: the GTID set or position as text ('' when none)
SELECT {{if .MariaDB}}@@global.gtid_current_pos{{else}}@@global.gtid_executed{{end}}
