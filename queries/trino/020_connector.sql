-- statement: connector
-- description: The connector of catalog .Catalog (iceberg, hive, postgresql, mysql, …): whether an input of it can be
-- description: pinned to a version (Iceberg: FOR VERSION AS OF) or only fingerprinted.
-- returns: connector_name (no row: no such catalog)
SELECT connector_name FROM system.metadata.catalogs WHERE catalog_name = {{lit .Catalog}}
