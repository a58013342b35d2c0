-- statement: delete_lines
-- description: Makes Table again without the rows at Lines (File, the row's __file, and Line, its __line): records
-- description: the engine read although their source listed them as bad (a Parquet value DuckDB would read changed,
-- description: bad_records: report). A copy, not a DELETE, for the reason given in delete_rows.sql.
CREATE OR REPLACE TABLE {{q .Table}} AS
SELECT * FROM {{q .Table}}
WHERE (CAST(__file AS VARCHAR), __line) NOT IN (
    SELECT * FROM (VALUES {{range $i, $l := .Lines}}{{if $i}}, {{end}}({{lit $l.File}}, {{$l.Line}}){{end}}) AS bad(file, line))
