SELECT *
FROM source
WHERE false -- sum_balance
