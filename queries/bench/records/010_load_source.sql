-- statement: load_source
-- description: The source records as a table: Parquet with read_parquet, or CSV with read_csv and declared types
-- description: (ids as VARCHAR, amounts as DECIMAL(18,2)), nothing sniffed. A row's location is its rowid.
CREATE TABLE source AS SELECT * FROM
{{- if .CSV}} read_csv({{lit .Source}}, auto_detect = false, header = true, delim = ',', quote = '"', escape = '"',
    columns = {'entry_id': 'VARCHAR', 'account': 'VARCHAR', 'amount': 'DECIMAL(18,2)'})
{{- else}} read_parquet({{lit .Source}}){{end}}
