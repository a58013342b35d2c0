-- statement: copy_create_schema
-- description: Creates the schema of the table CopyCSV fills (the samples'
-- description: PostgreSQL sink) if it is missing.
CREATE SCHEMA IF NOT EXISTS {{q .Schema}}
