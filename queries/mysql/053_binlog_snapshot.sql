-- statement: binlog_snapshot
-- description: MariaDB's binary log position that corresponds exactly to the
-- description: transaction's consistent snapshot (status variables
-- description: binlog_snapshot_file and binlog_snapshot_position).
-- returns: Variable_name, Value
SHOW SESSION STATUS LIKE 'binlog\_snapshot\_%'
