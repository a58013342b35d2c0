-- fragment: compared_within
-- description: Whether the difference of a compared column .C is within its declared tolerance (within_tolerance
-- description: over the values compared; for timestamps over the instants, so that a duration is elapsed time even
-- description: across a DST change); NULL when the column has no tolerance. Template helper cmpwithin.
-- returns: BOOLEAN
{{ if not .C.Tol}}CAST(NULL AS BOOLEAN)
{{- else if eq (print .C.Method) "timestamp"}}{{within .SourceInstant .SinkInstant .C.Tol}}
{{- else}}{{within .Source .Sink .C.Tol}}
{{- end}}
