-- statement: id_rows
-- description: How many rows of table .Table have a record id (.ID): null and empty ids left out, as
-- description: distinct_ids.sql leaves them out.
-- returns: one BIGINT
SELECT count(*) FROM {{q .Table}} WHERE NOT {{nullid "" .ID}}
