-- statement: materialize
-- description: Turns view .View into a table of the same name and rows (a copy of what the view reads now), for a
-- description: step that rewrites the table in place (prepare/convert.sql, prepare/alter_column.sql): the rows are
-- description: copied into .Temp, the view dropped and the copy renamed, in one transaction.
BEGIN TRANSACTION;
CREATE TABLE {{q .Temp}} AS SELECT * FROM {{q .View}};
DROP VIEW {{q .View}};
ALTER TABLE {{q .Temp}} RENAME TO {{q .View}};
COMMIT
