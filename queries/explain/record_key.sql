-- fragment: record_key
-- description: The condition that a row of alias .Alias has the record id asked for on the command line (.Key:
-- description: column and value pairs): each id column rendered as text equals the value as typed — for an id
-- description: column with normalize: (.Normalize, the spec's), which checks.Prepare rewrote normalised, the value
-- description: normalised by the same rule (rules/normalized_text.sql), so "D  " and "D" find one id. Template helper
-- description: recordkey.
-- returns: BOOLEAN
{{if not .Key}}TRUE{{end}}{{range $i, $k := .Key}}{{if $i}} AND {{end}}CAST({{$.Alias}}.{{q $k.Column}} AS VARCHAR) = {{with index $.Normalize $k.Column}}{{normtext (printf "NULLIF(%s, '')" (lit $k.Value)) .}}{{else}}{{lit $k.Value}}{{end}}{{end}}
