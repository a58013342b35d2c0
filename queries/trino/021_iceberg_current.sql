-- statement: iceberg_current
-- description: The current snapshot of Iceberg table .Catalog.Schema.Table: the head of its main branch ($refs), which
-- description: the run then reads FOR VERSION AS OF, however many commits land while it runs.
-- returns: snapshot_id as varchar (no row: the table has no snapshot)
SELECT CAST(snapshot_id AS varchar) FROM {{q .Catalog}}.{{q .Schema}}.{{q (print .Table "$refs")}} WHERE name = 'main' AND type = 'BRANCH'
