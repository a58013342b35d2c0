-- statement: duplicate_ids
-- description: Ids on more than one row of the source or the sink (GROUP BY … HAVING, then only those rows looked
-- description: at again): the row count, whether the copies conflict in value, the checkpoint ids and every row.
COPY (
    WITH rs AS (SELECT entry_id FROM source WHERE entry_id <> '' GROUP BY entry_id HAVING count(*) > 1),
         rk AS (SELECT entry_id FROM sink WHERE entry_id <> '' GROUP BY entry_id HAVING count(*) > 1)
    SELECT s.entry_id, 'source' AS side, count(*) AS row_count,
           count(DISTINCT (s.account, s.amount)) > 1 AS conflicting, CAST(NULL AS VARCHAR) AS checkpoint_ids,
           string_agg(s.rowid + 1, ';' ORDER BY s.rowid) AS rows
    FROM source AS s SEMI JOIN rs ON s.entry_id = rs.entry_id
    GROUP BY s.entry_id
    UNION ALL
    SELECT k.entry_id, 'sink', count(*), count(DISTINCT (k.account, k.amount)) > 1,
           string_agg(DISTINCT k.checkpoint_id, ';' ORDER BY k.checkpoint_id), string_agg(k.rowid + 1, ';' ORDER BY k.rowid)
    FROM sink AS k SEMI JOIN rk ON k.entry_id = rk.entry_id
    GROUP BY k.entry_id
    ORDER BY 1, 2
) TO {{lit (printf "%s/duplicate_ids.csv" .Out)}} (FORMAT csv, HEADER true)
