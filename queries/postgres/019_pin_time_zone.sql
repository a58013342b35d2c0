-- statement: pin_time_zone
-- description: The session time zone UTC for the read's transaction (SET LOCAL), whatever the server, database, role
-- description: or PGTZ sets: a query input's conversions between timestamptz and date, timestamp or text
-- description: (created_at::date, date_trunc('day', created_at)) give the same values on every machine and for every
-- description: role. (Values themselves are read in binary, as instants, and never depend on it.)
SET LOCAL TimeZone = 'UTC'
