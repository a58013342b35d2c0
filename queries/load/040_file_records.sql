-- statement: file_records
-- description: The number of records one file (bind parameter: its __file)
-- description: gave a loaded table.
SELECT count(*) FROM {{q .Table}} WHERE __file = ?
