-- fragment: text_decimal
-- description: Text .Text read as the exact decimal .Type (DECIMAL(p,s)) with .Cast (CAST, or TRY_CAST for NULL
-- description: where a value cannot be read): the value CAST(.Text AS .Type) gives, and an error where it errors.
-- description: With .Narrow (DECIMAL(18,s), when p > 18) a value is read as that first and the wide cast runs only
-- description: for values of more than 18 digits: DuckDB parses text into a 128-bit decimal about 40 times slower
-- description: than into a 64-bit one (measured: 57,804 values 0.27 s against 0.007 s), and both parses round a
-- description: value alike, so every value that fits 18 digits is the same. Template helper textdecimal.
-- returns: .Type
{{if .Narrow}}coalesce(TRY_CAST({{.Text}} AS {{.Narrow}}), {{.Cast}}({{.Text}} AS {{.Type}})){{else}}{{.Cast}}({{.Text}} AS {{.Type}}){{end}}
