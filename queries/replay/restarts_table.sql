-- statement: restarts_table
-- description: Table restarts, one row per restart of the job (checks.LoadRestarts fills it): its number and
-- description: label, when the job failed, the checkpoint it restored and when that checkpoint was triggered (its
-- description: barrier), and open_epoch, the highest checkpoint epoch a write before the failure can carry (NULL
-- description: when the restored checkpoint is unknown).
-- returns: table restarts (restart_no INTEGER, restart VARCHAR, restart_time TIMESTAMPTZ, restored_checkpoint
-- returns: BIGINT, restored_checkpoint_time TIMESTAMPTZ, open_epoch BIGINT)
CREATE OR REPLACE TABLE restarts (restart_no INTEGER, restart VARCHAR, restart_time TIMESTAMPTZ,
	restored_checkpoint BIGINT, restored_checkpoint_time TIMESTAMPTZ, open_epoch BIGINT)
