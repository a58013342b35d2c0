-- statement: load_sink
-- description: The sink as a table, read as the source is (the checkpoint id as BIGINT).
CREATE TABLE sink AS SELECT * FROM
{{- if .CSV}} read_csv({{lit .Sink}}, auto_detect = false, header = true, delim = ',', quote = '"', escape = '"',
    columns = {'entry_id': 'VARCHAR', 'account': 'VARCHAR', 'amount': 'DECIMAL(18,2)', 'checkpoint_id': 'BIGINT'})
{{- else}} read_parquet({{lit .Sink}}){{end}}
