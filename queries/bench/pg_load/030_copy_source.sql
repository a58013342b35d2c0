-- statement: copy_source
-- description: Fills the source table from the CSV text the client sends (a header line, then the records).
COPY {{q .Source}} FROM STDIN (FORMAT csv, HEADER true)
