-- statement: memory_limit
-- description: Caps the memory DuckDB holds before it spills to its temporary directory (a size such as 4GB).
SET memory_limit = {{lit .}}
