-- statement: drop_table
-- description: Drops a table a failed load, or a finished step, leaves.
DROP TABLE IF EXISTS {{q .Table}}
