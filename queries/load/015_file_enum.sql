-- statement: file_enum
-- description: The ENUM type .Name of a loaded table's __file column: the input's file names .Values, sorted byte
-- description: for byte (so an ENUM sorts as the text does). A file name is the same on millions of rows; as an ENUM
-- description: it takes one or two bytes a row instead of the text (measured: 10 M rows of a 25-character path, 323 MB
-- description: as VARCHAR, 44 MB as ENUM), which keeps the tables, and the joins that carry __file, within DuckDB's
-- description: memory. It reads as its text wherever text is wanted (a location 'file:line' is VARCHAR).
CREATE TYPE {{q .Name}} AS ENUM ({{range $i, $v := .Values}}{{if $i}}, {{end}}{{lit $v}}{{end}})
