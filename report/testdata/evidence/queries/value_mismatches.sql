SELECT *
FROM source
WHERE false -- value_mismatches
