-- statement: columns
-- description: No row of relation .Relation (a table, pinned FOR VERSION AS OF a snapshot, or a query in parentheses):
-- description: its result's column names and types are the input's columns as the checks read them (a pinned
-- description: snapshot's schema).
-- returns: the relation's columns, no row
SELECT * FROM {{.Relation}} LIMIT 0
