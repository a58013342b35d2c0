-- statement: pin_rows_read
-- description: Pins the session variables that decide which rows a SELECT returns, whatever the server's GLOBAL
-- description: values or the URI (whose unknown parameters the driver sets as session variables) say, before the
-- description: read's transaction opens: sql_select_limit at its maximum, so no SELECT is cut short, and on MariaDB
-- description: 10.3.4 and later (the executable comment, a plain comment to MySQL, which has no such variable)
-- description: system_versioning_asof at DEFAULT, so a system-versioned table is read as it is, not as of a past
-- description: time. DEFAULT is the GLOBAL value: rows_read_settings reads back what the session got.
SET SESSION sql_select_limit = 18446744073709551615 /*M!100304 , system_versioning_asof = DEFAULT */
