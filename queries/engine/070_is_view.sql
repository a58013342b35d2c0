-- statement: is_view
-- description: Whether a relation of the main schema is a view (a source read where it lies, load.Options.View)
-- description: rather than a table (bind parameter: the name).
-- returns: one BIGINT: 1 for a view, 0 otherwise
SELECT count(*) FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' AND view_name = ?
