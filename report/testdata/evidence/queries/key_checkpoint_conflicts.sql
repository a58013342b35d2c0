SELECT *
FROM source
WHERE false -- key_checkpoint_conflicts
