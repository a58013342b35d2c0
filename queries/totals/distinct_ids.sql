-- statement: distinct_ids
-- description: How many distinct record ids (.ID) table .Table holds, NULL and empty ids left out, a composite id
-- description: counted NULL-safely (DISTINCT treats NULL parts as equal).
-- returns: one BIGINT
SELECT count(*) FROM (SELECT DISTINCT {{cols "" .ID}} FROM {{q .Table}} WHERE NOT {{nullid "" .ID}})
