-- fragment: compared_differs
-- description: The rule that a compared column differs between a source row and a sink row: their values as
-- description: compared (.Source, .Sink: compared_value, normalised), NULL-safely — NULL equals NULL and differs from
-- description: any value. Two values of one exact numeric type in both inputs (the same DECIMAL(p,s) or integer
-- description: type) are given as stored, not cast to DECIMAL(38,s): the comparison is the same. Template helper
-- description: cmpdiffers.
-- returns: BOOLEAN
({{.Source}} IS DISTINCT FROM {{.Sink}})
