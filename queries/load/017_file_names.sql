-- statement: file_names
-- description: The distinct __file values of table .Table, loaded from the Arrow batches of a Go reader (a database
-- description: table's name, a topic partition, a file read by Go), at most .Limit + 1 of them, for the ENUM of the
-- description: column (file_enum.sql, file_enum_column.sql). A NULL among them is returned too.
-- returns: __file VARCHAR, one row per distinct value
SELECT DISTINCT CAST(__file AS VARCHAR) FROM {{q .Table}} LIMIT {{.Limit}} + 1
