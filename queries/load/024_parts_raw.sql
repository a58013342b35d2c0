-- statement: parts_raw
-- description: Makes the raw table .Raw of a part scan (sources.PartScan: an Iceberg table's data files), with no
-- description: row: the fields that are not constant within a part, typed as the table .Empty made from the kind's
-- description: Arrow records has them (so they load as the records would), then __part (the index of the row's
-- description: part, of type .PartType) and, with .Lines (some part read through the kind's records, whose rows
-- description: may skip lines), __line (its position in its part's file). The part's constants, __file, __row and
-- description: otherwise __line come from the view over it (parts_view.sql): the rows take the bytes of the
-- description: read_parquet of their columns and 2 or 10 more, not the 50 or more of every provenance column stored
-- description: (measured on 10 M rows in 20 files under the benchmark's 512 MB: every provenance column stored made
-- description: the load 2 to 3 times as slow as the files' read_parquet; __part and __line 1.1 to 1.3 times, __part
-- description: alone 1.0 to 1.1).
CREATE TABLE {{q .Raw}} AS
SELECT {{range .Columns}}{{q .}}, {{end}}CAST(NULL AS {{sqltype .PartType}}) AS __part{{if .Lines}}, CAST(NULL AS BIGINT) AS __line{{end}}
FROM {{q .Empty}}
LIMIT 0
