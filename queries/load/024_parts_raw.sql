-- statement: parts_raw
-- description: Makes the raw table .Raw of a part scan (sources.PartScan: an Iceberg table's data files), with no
-- description: row: the fields that are not constant within a part, typed as the table .Empty made from the kind's
-- description: Arrow records has them (so they load as the records would), then __part (the index of the row's
-- description: part, of type .PartType) and __line (its position in its part's file). The part's constants,
-- description: __file and __row come from the view over it (parts_view.sql): the rows take the bytes of the
-- description: read_parquet of their columns and 10 more, not the 50 or more of every provenance column stored
-- description: (measured on 10 M rows in 20 files, under the benchmark's 512 MB, on a busy 2-core machine: every
-- description: provenance column stored made the load 2 to 3 times as slow as the files' read_parquet, the raw rows
-- description: 1.0 to 1.4 times).
CREATE TABLE {{q .Raw}} AS
SELECT {{range .Columns}}{{q .}}, {{end}}CAST(NULL AS {{sqltype .PartType}}) AS __part, CAST(NULL AS BIGINT) AS __line
FROM {{q .Empty}}
LIMIT 0
