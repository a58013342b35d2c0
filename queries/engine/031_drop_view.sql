-- statement: drop_view
-- description: Drops an Arrow view once its table is materialised.
DROP VIEW IF EXISTS {{q .}}
