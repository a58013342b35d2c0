-- check: reperformance_mismatches
-- assertion: accuracy
-- description: Windows and groups whose sink value differs from the value re-performed from the source events
-- description: (exact decimal), one row per key and aggregate: the re-performed value against each sink row and
-- description: against the sum of the rows (what a dashboard summing them shows). finding tells
-- description: each_row_right_repeated (every row right, but several) from one_row_inflated / one_row_short and
-- description: rows_differ; restart names the restart that explains it, and events_in_replayed_interval counts the
-- description: key's events between that restart's restored checkpoint and the failure (an incrementing sink counts
-- description: them twice).
-- requires: reperform
-- chart: reperformance
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, aggregate=measure, expected=source, sink_sum=sink,
-- columns: difference=difference, finding=finding, checkpoint_ids=checkpoints, sink_locations=location, restart=restart
-- writes: expression, sink_rows, sink_values, each_row_equals_expected, sum_equals_expected, events_in_replayed_interval
WITH c AS (
    -- The candidate keys first, from a plain count and sum per key: a key of one sink row agrees exactly when its
    -- sum equals the re-performed value (the row is the sum), so only keys of several rows or a differing sum can
    -- disagree, and the ordered lists below are built for their rows only.
    SELECT c.__window_start, c.__window_end, c."region", count(*) AS sink_rows, CAST(sum(c."total") AS DECIMAL(38,2)) AS "sum__total", CAST(sum(c."n") AS DECIMAL(38,0)) AS "sum__n"
    FROM replay_sink AS c
    WHERE c.__compared
    GROUP BY c.__window_start, c.__window_end, c."region"
), x AS (
    SELECT c.__window_start, c.__window_end, c."region"
    FROM c JOIN expected AS e ON e.__window_end = c.__window_end AND e."region" IS NOT DISTINCT FROM c."region"
    WHERE c.sink_rows > 1 OR c."sum__total" IS DISTINCT FROM e."total" OR c."sum__n" IS DISTINCT FROM e."n"
), k AS (
    SELECT k.__window_start AS window_start, k.__window_end AS window_end, k."region",
           count(*) AS sink_rows,
           min(k.__epoch) AS first_checkpoint,
           array_to_string(list(DISTINCT CAST(k.__checkpoint AS VARCHAR) ORDER BY TRY_CAST(CAST(k.__checkpoint AS VARCHAR) AS HUGEINT) NULLS LAST, CAST(k.__checkpoint AS VARCHAR)), ';') AS checkpoint_ids,
           string_agg(k.__file || ':' || k.__line, ';' ORDER BY k.__row) AS sink_locations,
           list(k."total" ORDER BY k.__row) AS "rows__total",
           CAST(sum(k."total") AS DECIMAL(38,2)) AS "sum__total",
           list(k."n" ORDER BY k.__row) AS "rows__n",
           CAST(sum(k."n") AS DECIMAL(38,0)) AS "sum__n"
    FROM replay_sink AS k
    SEMI JOIN x ON (k.__window_start IS NOT DISTINCT FROM x.__window_start AND k.__window_end IS NOT DISTINCT FROM x.__window_end AND k."region" IS NOT DISTINCT FROM x."region")
    WHERE k.__compared
    GROUP BY k.__window_start, k.__window_end, k."region"
), j AS (
    SELECT k.*, e."total" AS "expected__total", e."n" AS "expected__n"
    FROM k JOIN expected AS e ON e.__window_end = k.window_end AND e."region" IS NOT DISTINCT FROM k."region"
), m AS (
    SELECT window_start, window_end, "region",
           'total' AS aggregate, 'sum(amount)' AS expression,
           CAST("expected__total" AS VARCHAR) AS expected,
           sink_rows,
           array_to_string(list_transform("rows__total", x -> coalesce(CAST(x AS VARCHAR), 'NULL')), ';') AS sink_values,
           CAST("sum__total" AS VARCHAR) AS sink_sum,
           CAST(CAST("sum__total" - "expected__total" AS DECIMAL(38,2)) AS VARCHAR) AS difference,
           coalesce(list_bool_and(list_transform("rows__total", x -> x IS NOT DISTINCT FROM "expected__total")), FALSE) AS each_row_equals_expected,
           "sum__total" IS NOT DISTINCT FROM "expected__total" AS sum_equals_expected,
           "sum__total" > "expected__total" AS sum_above,
           checkpoint_ids, first_checkpoint, sink_locations
    FROM j
    UNION ALL
    SELECT window_start, window_end, "region",
           'n' AS aggregate, 'count(*)' AS expression,
           CAST("expected__n" AS VARCHAR) AS expected,
           sink_rows,
           array_to_string(list_transform("rows__n", x -> coalesce(CAST(x AS VARCHAR), 'NULL')), ';') AS sink_values,
           CAST("sum__n" AS VARCHAR) AS sink_sum,
           CAST(CAST("sum__n" - "expected__n" AS DECIMAL(38,0)) AS VARCHAR) AS difference,
           coalesce(list_bool_and(list_transform("rows__n", x -> x IS NOT DISTINCT FROM "expected__n")), FALSE) AS each_row_equals_expected,
           "sum__n" IS NOT DISTINCT FROM "expected__n" AS sum_equals_expected,
           "sum__n" > "expected__n" AS sum_above,
           checkpoint_ids, first_checkpoint, sink_locations
    FROM j
), a AS (
    SELECT m.*, (SELECT r.restart FROM restarts AS r
	WHERE (r.restored_checkpoint < (m.first_checkpoint) AND (m.first_checkpoint) <= r.open_epoch)
	   OR EXISTS (SELECT 1 FROM replay_events AS ev WHERE ev.__window_end = m.window_end AND ev."region" IS NOT DISTINCT FROM m."region"
	              AND ev.__event_time >= r.restored_checkpoint_time AND ev.__event_time < r.restart_time)
	ORDER BY r.restart_time LIMIT 1) AS restart
    FROM m
    WHERE NOT (each_row_equals_expected AND sum_equals_expected)
)
SELECT window_start, window_end, "region", aggregate, expression, expected, sink_rows, sink_values, sink_sum, difference,
       each_row_equals_expected, sum_equals_expected,
       CASE WHEN sink_rows > 1 AND each_row_equals_expected THEN 'each_row_right_repeated'
            WHEN sink_rows = 1 AND sum_above THEN 'one_row_inflated'
            WHEN sink_rows = 1 THEN 'one_row_short'
            ELSE 'rows_differ' END AS finding,
       checkpoint_ids, sink_locations, restart,
       (SELECT count(*) FROM replay_events AS ev JOIN restarts AS r ON r.restart = a.restart
        WHERE ev.__window_end = a.window_end AND ev."region" IS NOT DISTINCT FROM a."region"
          AND ev.__event_time >= r.restored_checkpoint_time AND ev.__event_time < r.restart_time) AS events_in_replayed_interval
FROM a
