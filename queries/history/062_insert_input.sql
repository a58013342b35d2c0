-- statement: insert_input
-- description: Records one input file (or, with path NULL, an input that is not a file) of a run in the history
-- description: database .DB: run_seq, role, kind, location, rows, path, bytes, sha256 bound as $1 … $8.
INSERT INTO {{q .DB}}.run_inputs VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
