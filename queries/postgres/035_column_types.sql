-- statement: column_types
-- description: The SQL name of each result column's type, in order (bind parameters: the type OIDs and the type
-- description: modifiers of the columns), to refuse an unmapped type by name before a row is read.
-- returns: format_type text, one row per column
SELECT format_type(o, m) FROM unnest($1::oid[], $2::int4[]) WITH ORDINALITY AS u(o, m, i) ORDER BY i
