-- fragment: window_finding
-- description: What a disagreeing aggregate of a window and group is (columns sink_rows and those of
-- description: window_compare): each_row_right_repeated (every row equals the re-performed value, but there are
-- description: several: a plain-insert sink wrote the window again), one_row_inflated / one_row_short (one row, above
-- description: or below it: an incrementing upsert counted a replay twice, or events were lost), rows_differ.
-- description: Template helper windowfinding.
-- returns: VARCHAR
CASE WHEN sink_rows > 1 AND each_row_equals_expected THEN 'each_row_right_repeated'
            WHEN sink_rows = 1 AND sum_above THEN 'one_row_inflated'
            WHEN sink_rows = 1 THEN 'one_row_short'
            ELSE 'rows_differ' END
