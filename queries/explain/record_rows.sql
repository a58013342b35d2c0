-- statement: record_rows
-- description: Every row of table .Table (source or sink) with the record id asked for (record_key), in input
-- description: order, with its location.
-- returns: the table's columns without __row, then __loc VARCHAR (file:line, or topic[partition]@offset)
SELECT t.* EXCLUDE (__row), t.__file || {{locsep .Loc}} || t.__line AS __loc FROM {{q .Table}} AS t WHERE {{recordkey "t" .Key .Normalize}} ORDER BY t.__row
