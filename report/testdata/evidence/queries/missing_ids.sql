SELECT *
FROM source
WHERE false -- missing_ids
