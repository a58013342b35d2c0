-- fragment: compared_differs
-- description: The rule that a compared column differs between a source row and a sink row: their values as
-- description: compared (.Source, .Sink: compared_value, normalised), NULL-safely — NULL equals NULL and differs from
-- description: any value. Template helper cmpdiffers.
-- returns: BOOLEAN
({{.Source}} IS DISTINCT FROM {{.Sink}})
