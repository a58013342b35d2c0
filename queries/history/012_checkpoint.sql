-- statement: checkpoint
-- description: Writes every committed change of the history database .DB into its file, so that nothing is left in
-- description: a write-ahead log beside it when it is detached (a new history file is then renamed into place alone).
CHECKPOINT {{q .DB}}
