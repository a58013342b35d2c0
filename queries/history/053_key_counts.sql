-- statement: key_counts
-- description: How many keys of .Keys are new and how many recurring.
-- returns: one row: new BIGINT, recurring BIGINT
SELECT count(*) FILTER (WHERE since_last_run = {{lit .New}}) AS new,
       count(*) FILTER (WHERE since_last_run = {{lit .Recurring}}) AS recurring
FROM {{q .Keys}}
