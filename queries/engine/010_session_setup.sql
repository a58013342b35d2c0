-- statement: session_setup
-- description: Sets up the one connection a run uses: the session time zone UTC, so that no result depends on the
-- description: host's TZ (DuckDB otherwise takes it from the environment), rows kept in insertion order, a Parquet
-- description: file's footer read once for every statement that reads the file (a source read in place is read by
-- description: several: 0.6 ms a statement over the 152 MB events of the re-performance benchmark; a file that
-- description: changes during the run is refused at its end, sources.File.Unchanged), and — when
-- description: the run has a spill folder — DuckDB's temporary directory and its memory cap.
SET TimeZone = 'UTC';
SET preserve_insertion_order = true;
SET parquet_metadata_cache = true;
{{- if .TempDir}}
SET temp_directory = {{lit .TempDir}};
SET memory_limit = {{lit .MemoryLimit}};
{{- end}}
