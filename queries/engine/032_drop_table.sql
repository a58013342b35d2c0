-- statement: drop_table
-- description: Drops a table left by a load that failed, so that no half-loaded table is ever read.
DROP TABLE IF EXISTS {{q .}}
