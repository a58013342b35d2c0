-- statement: setup
-- description: The hand-written anchor's session (cmd/reconcile-bench): DuckDB's memory cap .MemoryLimit (as the
-- description: reconcile run it is measured against) and its spill folder .Temp.
SET memory_limit = {{lit .MemoryLimit}};
SET temp_directory = {{lit .Temp}}
