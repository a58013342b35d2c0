-- statement: read_csv
-- description: Reads CSV files that share one compression with DuckDB's
-- description: read_csv, nothing sniffed: every column VARCHAR, named as the
-- description: header every file shares; the delimiter and quote as declared (a
-- description: doubled quote is a quote); the compression the file names say.
-- description: Rows land in read order with their file in __file (.Filename;
-- description: an input of one file has none: every row is of that file, and the
-- description: path of each of its 10 M rows cost 0.3 s to read and store); a first
-- description: group creates the table, later groups append to it. Hive
-- description: partitioning is off: DuckDB would otherwise add (and sniff) a
-- description: column per key=value folder of the paths, beside the partition
-- description: columns the loader adds as text (partitions:).
{{if .Append}}INSERT INTO {{q .Table}} SELECT *{{else}}CREATE TABLE {{q .Table}} AS SELECT *{{end}}
FROM read_csv({{litlist .Files}},
  auto_detect = false, header = {{.Header}},
  delim = {{lit .Delimiter}}, quote = {{lit .Quote}}, escape = {{lit .Quote}},
  columns = { {{- range $i, $c := .Columns}}{{if $i}}, {{end}}{{lit $c}}: 'VARCHAR'{{end -}} },
  compression = {{lit .Compression}},
  hive_partitioning = false
{{- if .Filename}},
  filename = '__file'
{{- end}})
