-- statement: insert_from
-- description: Appends every row of table .From to table .Table, column by column in order (the rows of a part scan
-- description: the kind's Arrow records brought, loaded into a table of their own first): __file becomes the
-- description: table's ENUM, which names every part.
INSERT INTO {{q .Table}} SELECT * FROM {{q .From}}
