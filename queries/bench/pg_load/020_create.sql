-- statement: create
-- description: The benchmark's PostgreSQL tables: the source (.Source: entry_id text, account text, amount
-- description: numeric(18,2)) and the sink (.Sink: the same and checkpoint_id bigint), unlogged (a benchmark's
-- description: copy, not data to keep), filled by COPY FROM STDIN from the generated CSV files.
CREATE UNLOGGED TABLE {{q .Source}} (entry_id text, account text, amount numeric(18,2));
CREATE UNLOGGED TABLE {{q .Sink}} (entry_id text, account text, amount numeric(18,2), checkpoint_id bigint)
