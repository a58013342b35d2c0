-- statement: no_previous
-- description: Session table history_previous, empty: the control has no previous run (or no history file yet).
-- returns: table history_previous, as previous_exceptions makes it, with no row
CREATE OR REPLACE TEMP TABLE history_previous (
    check_id VARCHAR, key VARCHAR[], rows BIGINT, first_seen_seq BIGINT,
    first_seen_run VARCHAR, first_seen_at TIMESTAMP WITH TIME ZONE, open_runs INTEGER
)
