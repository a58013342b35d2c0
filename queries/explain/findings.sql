-- statement: findings
-- description: The rows of exception table .Table (one check's outcome) that carry the key asked for, sorted on
-- description: every column as the exceptions file is: by its id columns (.Key: record_key, normalised as
-- description: .Normalize says) for a check whose rows
-- description: name record ids; by its window column (.WindowColumn, TIMESTAMPTZ, equal to the instant .Instant)
-- description: and group columns (.Groups, each rendered as text equal to the value as typed) for a check whose
-- description: rows name windows; else by its location columns (.LocationColumns: 'file:line' lists separated by
-- description: ';'), a row naming one of the key's rows (.Locations).
-- returns: the exception table's columns
SELECT * FROM {{q .Table}} AS t
WHERE {{if .Key}}{{recordkey "t" .Key .Normalize}}
{{- else if .WindowColumn}}t.{{q .WindowColumn}} = TIMESTAMPTZ {{lit .Instant}}{{range .Groups}} AND CAST(t.{{q .Column}} AS VARCHAR) = {{lit .Value}}{{end}}
{{- else}}({{range $i, $c := .LocationColumns}}{{if $i}} OR {{end}}list_has_any(string_split(CAST(t.{{q $c}} AS VARCHAR), ';'), {{litlist $.Locations}}){{end}}){{end}}
ORDER BY ALL
