-- fragment: has_zone
-- description: The rule that a timestamp text .Text names its zone or offset: a time of day followed by Z, UTC or
-- description: an offset such as +01:00 (ISO 8601 / RFC 3339).
-- returns: BOOLEAN
regexp_matches({{.Text}}, '\d:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|z|UTC|[+-]\d{2}(:?\d{2})?)$')
