-- statement: copy_create_database
-- description: Creates the database of the table mysql.LoadCSV fills (the
-- description: samples' MySQL sink) if it is missing.
CREATE DATABASE IF NOT EXISTS {{q .Database}}
