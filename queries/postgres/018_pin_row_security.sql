-- statement: pin_row_security
-- description: Row-level security off for the read's transaction (SET LOCAL), whatever the server, database or role
-- description: sets: a policy that would hide rows from the reading role makes the read fail (SQLSTATE 42501) instead of
-- description: silently leaving them out, as pg_dump reads (PostgreSQL documentation, "row_security": "When set to
-- description: off, queries fail which would otherwise apply at least one policy"). A role that bypasses row-level
-- description: security (the table's owner, a superuser, BYPASSRLS) reads every row either way.
SET LOCAL row_security = off
