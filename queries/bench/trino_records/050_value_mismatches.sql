-- statement: value_mismatches
-- description: Matched rows (one join) whose account or amount differ: one row per pair and column.
SELECT s.entry_id, c."column", c.source_value, c.sink_value, c.difference, s."$path" AS source_file, k."$path" AS sink_file
FROM {{.Source}} AS s JOIN {{.Sink}} AS k ON s.entry_id = k.entry_id
CROSS JOIN UNNEST(ARRAY[
    ROW('account', s.account IS DISTINCT FROM k.account, s.account, k.account, CAST(NULL AS varchar)),
    ROW('amount', s.amount IS DISTINCT FROM k.amount, CAST(s.amount AS varchar), CAST(k.amount AS varchar), CAST(k.amount - s.amount AS varchar))
]) AS c("column", differs, source_value, sink_value, difference)
WHERE (s.account IS DISTINCT FROM k.account OR s.amount IS DISTINCT FROM k.amount) AND c.differs
