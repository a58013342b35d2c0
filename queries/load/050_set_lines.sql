-- statement: set_lines
-- description: Sets __line of one file's records (bind parameter: its
-- description: __file) to the physical line each starts on, from a table
-- description: Lines (rec, line) that maps the record-numbered __line the
-- description: reader gave to the line.
UPDATE {{q .Table}} SET __line = m.line
FROM {{q .Lines}} AS m
WHERE {{q .Table}}.__file = ? AND {{q .Table}}.__line = m.rec
