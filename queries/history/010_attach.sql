-- statement: attach
-- description: Attaches the history database file .Path to the session as .DB: read-only to classify a run's
-- description: exceptions and to list runs, read-write to record a run (a path that does not exist is created,
-- description: which only happens for a new file beside the final name; see package history).
ATTACH {{lit .Path}} AS {{q .DB}}{{if .ReadOnly}} (READ_ONLY){{end}}
