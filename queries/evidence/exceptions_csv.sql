-- statement: exceptions_csv
-- description: Writes every row of exception table .Table to the CSV file .Path: a header, then the rows sorted on
-- description: every column (byte-identical for the same inputs and spec); only the header when the check passed.
-- returns: the number of rows written
COPY (SELECT * FROM {{q .Table}} ORDER BY ALL) TO {{lit .Path}} (FORMAT csv, HEADER true)
