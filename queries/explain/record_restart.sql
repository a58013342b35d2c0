-- statement: record_restart
-- description: The restart that explains a record id written more than once to the sink (.Key: record_key; the
-- description: checkpoint column .Checkpoint): the restart that rewound its first copy in checkpoint order
-- description: (rules/restart_of.sql), as replay/episodes.sql attributes the copy written again after it. NULL
-- description: when the id has at most one sink row, or no restart rewound its first copy.
-- returns: one row: restart VARCHAR
WITH k AS (
    SELECT count(*) AS copies, min(TRY_CAST(trim(CAST(t.{{q .Checkpoint}} AS VARCHAR)) AS BIGINT)) AS first_epoch
    FROM sink AS t WHERE {{recordkey "t" .Key .Normalize}}
)
SELECT CASE WHEN k.copies > 1 THEN {{restartof "k.first_epoch"}} END AS restart FROM k
