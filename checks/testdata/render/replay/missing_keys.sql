-- check: missing_keys
-- assertion: completeness
-- description: Windows and groups with source events but no sink row: windows never flushed (or lost), with the
-- description: re-performed values and the number of source events.
-- requires: reperform
-- finding: replay
-- columns: window_start=window_start, window_end=window_end, first_source_location=location, expected_*=source
-- writes: source_events
WITH m AS (
    SELECT e.*
    FROM expected AS e
    WHERE NOT EXISTS (SELECT 1 FROM replay_sink AS k WHERE (k.__window_end = e.__window_end AND k."region" IS NOT DISTINCT FROM e."region"))
), f AS (
    -- The first source event of the missing keys only: the events are read again only when a key is missing.
    SELECT ev.__window_start, ev.__window_end, ev."region", min(ev.__row) AS __first_row
    FROM replay_events AS ev
    SEMI JOIN m ON (ev.__window_start IS NOT DISTINCT FROM m.__window_start AND ev.__window_end IS NOT DISTINCT FROM m.__window_end AND ev."region" IS NOT DISTINCT FROM m."region")
    GROUP BY ev.__window_start, ev.__window_end, ev."region"
)
SELECT m.__window_start AS window_start, m.__window_end AS window_end, m."region",
       m.__events AS source_events,
       m."total" AS "expected_total",
       m."n" AS "expected_n",
       s.__file || ':' || s.__line AS first_source_location
FROM m
JOIN f ON (f.__window_start IS NOT DISTINCT FROM m.__window_start AND f.__window_end IS NOT DISTINCT FROM m.__window_end AND f."region" IS NOT DISTINCT FROM m."region")
JOIN source AS s ON s.__row = f.__first_row
