-- statement: delete_rows
-- description: Makes Table again without the rows whose __row is one of Rows: records whose value could not be
-- description: read, listed as bad records instead (bad_records: report). A copy, not a DELETE: DuckDB 1.5's
-- description: ALTER TABLE … SET DATA TYPE … USING CAST still casts the values of deleted rows, so a declared type
-- description: or an exact type would fail on the very value that was removed.
CREATE OR REPLACE TABLE {{q .Table}} AS
SELECT * FROM {{q .Table}}
WHERE __row NOT IN ({{range $i, $r := .Rows}}{{if $i}}, {{end}}{{$r}}{{end}})
