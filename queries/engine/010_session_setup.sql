-- statement: session_setup
-- description: Sets up the one connection a run uses: the session time zone UTC, so that no result depends on the
-- description: host's TZ (DuckDB otherwise takes it from the environment), rows kept in insertion order, and — when
-- description: the run has a spill folder — DuckDB's temporary directory and its memory cap.
SET TimeZone = 'UTC';
SET preserve_insertion_order = true;
{{- if .TempDir}}
SET temp_directory = {{lit .TempDir}};
SET memory_limit = {{lit .MemoryLimit}};
{{- end}}
