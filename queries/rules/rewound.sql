-- fragment: rewound
-- description: The rule that a restart rolled back a write: restart .Restart (an alias of table restarts) restored
-- description: a checkpoint older than the write's checkpoint epoch .Epoch, and the write could precede the failure
-- description: (its epoch is at most open_epoch: 1 + the last checkpoint triggered before the failure, or the
-- description: restored checkpoint + 1 without a history). A sink that is not transactional keeps such a write
-- description: while the job's state forgets it, so the replay writes it again.
-- returns: BOOLEAN
{{.Restart}}.restored_checkpoint < ({{.Epoch}}) AND ({{.Epoch}}) <= {{.Restart}}.open_epoch
