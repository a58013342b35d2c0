-- statement: copy_sink
-- description: Fills the sink table from the CSV text the client sends.
COPY {{q .Sink}} FROM STDIN (FORMAT csv, HEADER true)
