-- statement: analyze
-- description: Statistics for both tables, as a careful engineer gathers them before querying.
ANALYZE {{q .Source}}, {{q .Sink}}
