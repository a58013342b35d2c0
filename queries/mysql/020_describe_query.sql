-- statement: describe_query
-- description: The columns of the input's query (Query) without running it:
-- description: the query as a derived table with LIMIT 0. The query stands on
-- description: lines of its own so that a trailing -- comment cannot swallow
-- description: the parenthesis.
SELECT * FROM (
{{.Query}}
) AS reconcile_describe LIMIT 0
