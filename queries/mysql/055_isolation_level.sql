-- statement: isolation_level
-- description: The session's isolation level as the server reports it:
-- description: @@session.tx_isolation on MariaDB (MariaDB), which names it so
-- description: before 11.1, @@session.transaction_isolation on MySQL.
-- returns: the level, e.g. REPEATABLE-READ
SELECT {{if .MariaDB}}@@session.tx_isolation{{else}}@@session.transaction_isolation{{end}}
