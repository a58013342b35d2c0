-- statement: record_rows
-- description: Every row of table .Table (source or sink) whose id columns, rendered as text, equal the values
-- description: asked for (.Key), in input order, with its location.
-- returns: the table's columns without __row, then __loc VARCHAR (file:line)
SELECT t.* EXCLUDE (__row), t.__file || ':' || t.__line AS __loc FROM {{q .Table}} AS t WHERE {{keymatch "t" .Key}} ORDER BY t.__row
