-- fragment: window_agrees
-- description: The verdict that an aggregate of a window and group agrees with the re-performance: every compared
-- description: sink row and their sum equal the re-performed value (columns of window_compare). Template helper
-- description: windowagrees.
-- returns: BOOLEAN
(each_row_equals_expected AND sum_equals_expected)
