-- check: commit_history_info
-- assertion: completeness, accuracy
-- description: Commits of a table input listed for information (an Iceberg table's snapshots): a rewrite (compaction,
-- description: or an overwrite that removed data files) whose rows are attributed to it and not to the checkpoints
-- description: that first wrote them, a snapshot not in the ancestry of the one read (rolled back: its rows are not
-- description: read), and one operator's checkpoint id committed under two job ids.
-- requires: commit_history
-- severity: info
SELECT side, finding, "commit", other_commit, detail
FROM commit_history
WHERE NOT exception
ORDER BY side, seq
