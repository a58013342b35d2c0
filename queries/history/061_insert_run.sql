-- statement: insert_run
-- description: Records one run in the history database .DB; the values are bound in the order of the runs table's
-- description: columns ($1 run_seq … $16 summary).
INSERT INTO {{q .DB}}.runs VALUES ($1, $2, $3, CAST($4 AS TIMESTAMP WITH TIME ZONE), CAST($5 AS TIMESTAMP WITH TIME ZONE),
    $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
