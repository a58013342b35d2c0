-- statement: iceberg_snapshot
-- description: What the evidence records of snapshot .Snapshot of Iceberg table .Catalog.Schema.Table: when it was
-- description: committed, its operation, its parent, and the table's location ($snapshots, $properties).
-- returns: committed_at, operation, parent_id, table_location (each varchar; no row: no such snapshot)
SELECT CAST(s.committed_at AS varchar), s.operation, CAST(s.parent_id AS varchar),
       (SELECT p.value FROM {{q .Catalog}}.{{q .Schema}}.{{q (print .Table "$properties")}} AS p WHERE p.key = 'location')
FROM {{q .Catalog}}.{{q .Schema}}.{{q (print .Table "$snapshots")}} AS s
WHERE s.snapshot_id = {{.Snapshot}}
