-- statement: setup
-- description: The hand-written ledger anchor's session (cmd/reconcile-bench, suite ledger): DuckDB's memory cap
-- description: .MemoryLimit (as the reconcile run it is measured against) and its spill folder .Temp.
SET memory_limit = {{lit .MemoryLimit}};
SET temp_directory = {{lit .Temp}}
