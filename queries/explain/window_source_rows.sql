-- statement: window_source_rows
-- description: Every source event of the window and group asked for, in input order, with its event time (UTC),
-- description: every window it belongs to, its location, and the restart nearest to it in time (the first such
-- description: restart on a tie): the microseconds from the event to the restart (negative: the event came after
-- description: it) and whether the event lies in that restart's replayed interval (rules/replayed.sql: processed
-- description: twice).
-- returns: the source's columns without __row, then __event_time, __windows, __nearest_restart,
-- returns: __nearest_micros BIGINT, __nearest_replayed BOOLEAN, __loc
SELECT t.* EXCLUDE (__row), strftime(v.__event_time, '%Y-%m-%dT%H:%M:%S.%gZ') AS __event_time,
       (SELECT string_agg('[' || strftime(a.__window_start, '%Y-%m-%dT%H:%M:%SZ') || ', ' || strftime(a.__window_end, '%Y-%m-%dT%H:%M:%SZ') || ')', ' ' ORDER BY a.__window_start)
          FROM replay_events AS a WHERE a.__row = v.__row) AS __windows,
       n.restart AS __nearest_restart, n.micros AS __nearest_micros, coalesce(n.replayed, FALSE) AS __nearest_replayed,
       {{loc "t" .SourceLocation}} AS __loc
FROM replay_events AS v JOIN source AS t ON t.__row = v.__row
LEFT JOIN LATERAL (
    SELECT r.restart, epoch_us(r.restart_time) - epoch_us(v.__event_time) AS micros, {{replayed "r" "v.__event_time"}} AS replayed
    FROM restarts AS r
    ORDER BY abs(epoch_us(r.restart_time) - epoch_us(v.__event_time)), r.restart_no
    LIMIT 1
) AS n ON TRUE
WHERE {{windowkey "v" .Key}} ORDER BY v.__row
