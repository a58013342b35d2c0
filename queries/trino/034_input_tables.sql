-- statement: input_tables
-- description: The tables query .Query (a query input) reads, as Trino plans it, without running it: EXPLAIN's IO
-- description: plan in JSON, whose inputTableColumnInfos name each table's catalog, schema and table (a connector's
-- description: pass-through query is named _generated._generated_query).
-- returns: one row: the plan as JSON text
EXPLAIN (TYPE IO, FORMAT JSON) {{.Query}}
