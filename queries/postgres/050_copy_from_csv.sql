-- statement: copy_from_csv
-- description: Copies a CSV file with a header line into the table CopyCSV
-- description: created; the server parses every value with its column's type.
COPY {{range $i, $p := .Table}}{{if $i}}.{{end}}{{q $p}}{{end}} FROM STDIN (FORMAT csv, HEADER true)
