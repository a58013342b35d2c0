-- statement: rows_read_settings
-- description: The session's values of the variables pin_rows_read sets, read back after it: sql_select_limit,
-- description: and system_versioning_asof where the server has it (MariaDB 10.3.4 and later; a row only there).
-- description: The read needs 18446744073709551615 and DEFAULT.
-- returns: Variable_name, Value
SHOW SESSION VARIABLES WHERE Variable_name IN ('sql_select_limit', 'system_versioning_asof')
