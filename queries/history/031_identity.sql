-- statement: identity
-- description: The identity row of the history database .DB: its magic, schema version and the reconcile that
-- description: created it.
-- returns: magic VARCHAR, schema_version INTEGER, created_by VARCHAR; one row in a history database
SELECT magic, schema_version, created_by FROM {{q .DB}}.reconcile_history
