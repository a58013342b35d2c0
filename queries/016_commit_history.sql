-- check: commit_history
-- assertion: completeness, accuracy
-- description: Commits of a table input that post rows twice or replay a checkpoint (an Iceberg table's snapshots): a
-- description: Flink checkpoint committed twice by one job and operator, a checkpoint id that goes back along the
-- description: ancestry, a data file added by two snapshots (its rows read twice); each names both commits.
-- requires: commit_history
SELECT side, finding, "commit", other_commit, detail
FROM commit_history
WHERE exception
ORDER BY side, seq
