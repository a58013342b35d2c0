-- fragment: restart_of
-- description: The restart that explains a write of checkpoint epoch .Epoch: the earliest restart that rewound it
-- description: (see rewound); NULL when none did. Template helper restartof.
-- returns: VARCHAR, the restart's label (restarts.restart)
(SELECT r.restart FROM restarts AS r WHERE {{rewound "r" .Epoch}} ORDER BY r.restart_time LIMIT 1)
