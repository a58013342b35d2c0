-- statement: drop_file_enum
-- description: Drops the ENUM type of a __file column (file_enum.sql) left by an earlier attempt, once no table uses
-- description: it.
DROP TYPE IF EXISTS {{q .Name}}
