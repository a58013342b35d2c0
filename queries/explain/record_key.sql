-- fragment: record_key
-- description: The condition that a row of alias .Alias has the record id asked for on the command line (.Key:
-- description: column and value pairs): each id column rendered as text equals the value as typed. Template helper
-- description: recordkey.
-- returns: BOOLEAN
{{if not .Key}}TRUE{{end}}{{range $i, $k := .Key}}{{if $i}} AND {{end}}CAST({{$.Alias}}.{{q $k.Column}} AS VARCHAR) = {{lit $k.Value}}{{end}}
