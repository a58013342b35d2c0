-- statement: window_sink_rows
-- description: Every sink row of the window and group asked for, in input order, with its checkpoint id, watermark
-- description: (UTC), emission, whether it is the emission compared, its location, and the restart nearest to it by
-- description: checkpoint: the restart whose restored checkpoint is closest to the row's epoch (the first such
-- description: restart on a tie), and how the row relates to it: covered (its checkpoint is at most the restored
-- description: one: not replayed), open (its checkpoint is the restart's open_epoch: the epoch open at the failure,
-- description: which is also the restored job's first, so the row was written before the failure or by the replay and
-- description: the checkpoint id alone cannot tell which), rewound (rules/rewound.sql: written before the failure,
-- description: rolled back in state but not in the sink) or after (written after the restart).
-- returns: the sink's columns without __row, then __checkpoint, __epoch, __watermark, __emission, __compared,
-- returns: __nearest_restart, __nearest_relation, __loc
SELECT t.* EXCLUDE (__row), k.__checkpoint AS __checkpoint, k.__epoch AS __epoch, strftime(k.__watermark, '%Y-%m-%dT%H:%M:%S.%gZ') AS __watermark,
       k.__emission AS __emission, k.__compared AS __compared, n.restart AS __nearest_restart, n.relation AS __nearest_relation,
       {{loc "t" .SinkLoc}} AS __loc
FROM replay_sink AS k JOIN sink AS t ON t.__row = k.__row
LEFT JOIN LATERAL (
    SELECT r.restart, CASE WHEN k.__epoch <= r.restored_checkpoint THEN 'covered' WHEN k.__epoch = r.open_epoch THEN 'open'
                           WHEN {{rewound "r" "k.__epoch"}} THEN 'rewound' ELSE 'after' END AS relation
    FROM restarts AS r
    WHERE k.__epoch IS NOT NULL AND r.restored_checkpoint IS NOT NULL
    ORDER BY abs(k.__epoch - r.restored_checkpoint), r.restart_no
    LIMIT 1
) AS n ON TRUE
WHERE {{windowkey "k" .Key}} ORDER BY k.__row
