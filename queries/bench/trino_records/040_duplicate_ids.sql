-- statement: duplicate_ids
-- description: Ids on more than one row of the source or the sink (GROUP BY … HAVING first): row count, conflict
-- description: in value, checkpoint ids and every file.
WITH rs AS (SELECT entry_id FROM {{.Source}} WHERE entry_id <> '' GROUP BY entry_id HAVING count(*) > 1),
     rk AS (SELECT entry_id FROM {{.Sink}} WHERE entry_id <> '' GROUP BY entry_id HAVING count(*) > 1)
SELECT s.entry_id, 'source' AS side, count(*) AS row_count,
       count(DISTINCT ROW(s.account, s.amount)) > 1 AS conflicting, CAST(NULL AS varchar) AS checkpoint_ids,
       listagg(s."$path", ';') WITHIN GROUP (ORDER BY s."$path") AS files
FROM {{.Source}} AS s WHERE s.entry_id IN (SELECT entry_id FROM rs)
GROUP BY s.entry_id
UNION ALL
SELECT k.entry_id, 'sink', count(*), count(DISTINCT ROW(k.account, k.amount)) > 1,
       array_join(array_sort(array_distinct(array_agg(k.checkpoint_id))), ';'), listagg(k."$path", ';') WITHIN GROUP (ORDER BY k."$path")
FROM {{.Sink}} AS k WHERE k.entry_id IN (SELECT entry_id FROM rk)
GROUP BY k.entry_id
