-- statement: parts_insert_records
-- description: Appends the rows of a run of parts the kind's Arrow records brought (loaded into .From first, with
-- description: their __part) to the raw table .Raw of a part scan (parts_raw.sql): the columns that are not constant
-- description: within a part, __part and __line. Rows in read order.
INSERT INTO {{q .Raw}}
SELECT {{range .Columns}}{{q .}}, {{end}}CAST({{q .Part}} AS {{sqltype .PartType}}), __line
FROM {{q .From}}
