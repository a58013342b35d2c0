-- statement: schema
-- description: The Trino benchmark's schema .Schema in catalog iceberg (cmd/reconcile-trino-bench).
CREATE SCHEMA IF NOT EXISTS iceberg.{{q .Schema}}
