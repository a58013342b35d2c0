-- check: duplicate_postings
-- assertion: accuracy
-- description: Postings on more than one row of one input: every combination of values of the duplicates: columns
-- description: that more than one row of the source, or of the sink, holds (each input that has all of those
-- description: columns is checked; no id is needed), once per input, with its number of copies and the location of
-- description: every copy. Values are compared as the input types them: numbers by value (a DECIMAL holds 10.0 and
-- description: 10.00 as one value; a measure is an exact decimal whatever it is stored as), text as written (the
-- description: CSV texts 10.0 and 10.00 differ unless types: or measures: make the column a number; an empty text
-- description: counts as NULL), timestamps as stored, intervals field by field. NULL equals NULL: two rows with
-- description: NULL in the same column are one posting repeated; NULL and a value differ.
-- requires: duplicates
-- columns: locations=location
-- writes: side, copies
WITH
{{- range $i, $in := .Postings}}{{if $i}},{{end}}
{{name "repeated_" $in.Table}} AS (
    -- The combinations on more than one row, in one pass: no location is
    -- built for a row that is not repeated.
    SELECT {{range $j, $c := $in.Columns}}{{if $j}}, {{end}}{{postingkey "x" $c}} AS {{name "__k" (print $j)}}{{end}}
    FROM {{q $in.Table}} AS x
    GROUP BY ALL
    HAVING count(*) > 1
), {{name "copies_" $in.Table}} AS (
    -- Each combination's key (__k), and an interval's value too (__v: its
    -- key is its fields), for the rows of the repeated ones only.
    SELECT {{range $j, $c := $in.Columns}}{{postingkey "x" $c}} AS {{name "__k" (print $j)}},
           {{if $c.Interval}}x.{{q $c.Name}} AS {{name "__v" (print $j)}},
           {{end}}{{end}}{{loc "x" $in.Location}} AS __location, x.__row AS __input_row
    FROM {{q $in.Table}} AS x
    SEMI JOIN {{name "repeated_" $in.Table}} AS r
      ON {{range $j, $c := $in.Columns}}{{if $j}}
     AND {{end}}{{postingkey "x" $c}} IS NOT DISTINCT FROM r.{{name "__k" (print $j)}}{{end}}
), {{name "found_" $in.Table}} AS (
    SELECT {{range $j, $c := $in.Columns}}{{$v := printf "any_value(c.%s)" (name (or (and $c.Interval "__v") "__k") (print $j))}}
           {{- if $c.AsText}}CAST({{$v}} AS VARCHAR){{else}}{{$v}}{{end}} AS {{q $c.Name}},
           {{end}}{{lit $in.Table}} AS side,
           count(*) AS copies,
           string_agg(c.__location, ';' ORDER BY c.__input_row) AS locations
    FROM {{name "copies_" $in.Table}} AS c
    GROUP BY {{range $j, $c := $in.Columns}}{{if $j}}, {{end}}c.{{name "__k" (print $j)}}{{end}}
)
{{- end}}
{{- range $i, $in := .Postings}}
{{if $i}}UNION ALL
{{end}}SELECT * FROM {{name "found_" $in.Table}}
{{- end}}
