-- statement: duplicate_ids
-- description: Ids on more than one row of the source or the sink (GROUP BY … HAVING first): row count, conflict
-- description: in value, checkpoint ids and every row.
COPY (
    WITH rs AS (SELECT entry_id FROM {{q .Source}} WHERE entry_id <> '' GROUP BY entry_id HAVING count(*) > 1),
         rk AS (SELECT entry_id FROM {{q .Sink}} WHERE entry_id <> '' GROUP BY entry_id HAVING count(*) > 1)
    SELECT s.entry_id, 'source' AS side, count(*) AS row_count,
           count(DISTINCT (s.account, s.amount)) > 1 AS conflicting, NULL::text AS checkpoint_ids,
           string_agg(s.ctid::text, ';' ORDER BY s.ctid) AS rows
    FROM {{q .Source}} AS s WHERE s.entry_id IN (SELECT entry_id FROM rs)
    GROUP BY s.entry_id
    UNION ALL
    SELECT k.entry_id, 'sink', count(*), count(DISTINCT (k.account, k.amount)) > 1,
           string_agg(DISTINCT k.checkpoint_id::text, ';'), string_agg(k.ctid::text, ';' ORDER BY k.ctid)
    FROM {{q .Sink}} AS k WHERE k.entry_id IN (SELECT entry_id FROM rk)
    GROUP BY k.entry_id
    ORDER BY 1, 2
) TO STDOUT (FORMAT csv, HEADER true)
