-- fragment: normalized_text
-- description: Text .Value (an expression of type VARCHAR, NULL for an empty text) normalised as normalize: lists,
-- description: in one order whatever the list's: .Trim drops leading and trailing white space (RE2's \s: space, tab,
-- description: CR, LF, FF), .Zeros (strip_leading_zeros) the '0' characters the value starts with — a value of zeros
-- description: only becomes '0' — and .Casefold lower-cases (DuckDB's lower(), the Unicode lower-case mapping). A value
-- description: trimmed to nothing is NULL, as an empty text is. Template helper normtext: a compared column
-- description: (rules/compared_value.sql) and an id or group column (prepare/convert.sql, alter_column.sql and
-- description: key_spellings.sql) are normalised by this one rule.
-- returns: VARCHAR
{{$v := .Value}}
{{- if .Trim}}{{$v = printf "NULLIF(regexp_replace(%s, '^\\s+|\\s+$', '', 'g'), '')" $v}}{{end}}
{{- if .Zeros}}{{$v = printf "regexp_replace(%s, '(?s)^0+(.)', '\\1')" $v}}{{end}}
{{- if .Casefold}}{{$v = printf "lower(%s)" $v}}{{end}}{{$v}}
