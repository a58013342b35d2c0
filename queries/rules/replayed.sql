-- fragment: replayed
-- description: The rule that an instant .Time lies in the replayed interval of restart .Restart (an alias of table
-- description: restarts): from the restored checkpoint's barrier (restored_checkpoint_time, inclusive) to the
-- description: failure (restart_time, exclusive). Events in it were processed twice: once before the failure, once
-- description: in the replay.
-- returns: BOOLEAN
{{.Time}} >= {{.Restart}}.restored_checkpoint_time AND {{.Time}} < {{.Restart}}.restart_time
