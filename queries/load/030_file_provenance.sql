-- statement: file_provenance
-- description: Gives a table read by a DuckDB file reader the provenance
-- description: columns every input has: __file as the evidence names the file
-- description: (Names, matched to the Paths read), __line counting from
-- description: FirstLine within each file, __row the 0-based position in read
-- description: order (the reader's insertion order).
CREATE TABLE {{q .Table}} AS
SELECT * EXCLUDE (__file),
  {{litlist .Names}}[list_position({{litlist .Paths}}, __file)] AS __file,
  rowid - min(rowid) OVER (PARTITION BY __file) + {{.FirstLine}} AS __line,
  rowid AS __row
FROM {{q .Raw}}
