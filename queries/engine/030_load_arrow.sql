-- statement: load_arrow
-- description: Materialises a registered Arrow view as a table of its own (an Arrow view can be scanned only once).
CREATE TABLE {{q .Table}} AS SELECT * FROM {{q .View}}
