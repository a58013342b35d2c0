-- statement: exists
-- description: Whether the Trino benchmark's table .Table already exists in schema .Schema of catalog iceberg
-- description: (cmd/reconcile-trino-bench generates its tables once and keeps them).
-- returns: one BIGINT: 1 or 0
SELECT count(*) FROM iceberg.information_schema.tables WHERE table_schema = {{lit .Schema}} AND table_name = {{lit .Table}}
