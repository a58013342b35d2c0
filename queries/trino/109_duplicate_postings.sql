-- statement: duplicate_postings
-- description: Check duplicate_postings (queries/042_duplicate_postings.sql) in Trino's dialect: every combination of
-- description: values of the duplicates: columns that more than one row of an input holds (each input of .Postings),
-- description: once per input, with its number of copies and the locations of the copies (in text order: Trino has
-- description: no input order). Each column is compared as trino/posting_key.sql takes it (a number by value, text
-- description: as written with an empty text as NULL); NULL equals NULL, in the grouping and in the join back to the
-- description: rows of the repeated combinations (PostingMatch: equalities with a NULL flag, which Trino hashes).
-- description: A column typed differently in the two inputs is written as text (CAST … AS VARCHAR, as DuckDB writes
-- description: the types Prepare lets through).
-- returns: the duplicates: columns, side, copies, locations
WITH
{{- range $i, $in := .Postings}}{{if $i}},{{end}}
{{name "repeated_" $in.Table}} AS (
    SELECT {{range $j, $c := $in.Columns}}{{if $j}}, {{end}}{{postingkey "x" $c}} AS __k{{$j}}{{end}}
    FROM {{q $in.Table}} AS x
    GROUP BY {{range $j, $c := $in.Columns}}{{if $j}}, {{end}}{{postingkey "x" $c}}{{end}}
    HAVING count(*) > 1
), {{name "found_" $in.Table}} AS (
    SELECT {{range $j, $c := $in.Columns}}{{if $c.AsText}}CAST(r.__k{{$j}} AS VARCHAR){{else}}r.__k{{$j}}{{end}} AS {{q $c.Name}},
           {{end}}{{lit $in.Table}} AS side,
           count(*) AS copies,
           listagg({{loc "x"}}, ';') WITHIN GROUP (ORDER BY {{loc "x"}}) AS locations
    FROM {{q $in.Table}} AS x
    JOIN {{name "repeated_" $in.Table}} AS r ON {{$.PostingMatch "x" "r" $in}}
    GROUP BY {{range $j, $c := $in.Columns}}{{if $j}}, {{end}}r.__k{{$j}}{{end}}
)
{{- end}}
{{- range $i, $in := .Postings}}
{{if $i}}UNION ALL
{{end}}SELECT * FROM {{name "found_" $in.Table}}
{{- end}}
