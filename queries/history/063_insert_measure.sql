-- statement: insert_measure
-- description: Records one measure total of a run in the history database .DB: run_seq, measure, type, source_sum,
-- description: sink_sum, difference (exact decimal text) bound as $1 … $6.
INSERT INTO {{q .DB}}.run_measures VALUES ($1, $2, $3, $4, $5, $6)
