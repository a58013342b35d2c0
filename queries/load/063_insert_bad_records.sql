-- statement: insert_bad_records
-- description: Adds Records (Side, Location, Column, Value, Reason; Value NULL when nil) to the bad records table
-- description: Table: records the checks' preparation could not read (bad_records: report).
INSERT INTO {{q .Table}} (side, location, "column", value, reason)
VALUES {{range $i, $r := .Records}}{{if $i}}, {{end}}({{lit $r.Side}}, {{lit $r.Location}}, {{lit $r.Column}}, {{if $r.Value}}{{lit $r.Value}}{{else}}NULL{{end}}, {{lit $r.Reason}}){{end}}
