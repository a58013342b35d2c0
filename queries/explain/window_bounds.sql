-- statement: window_bounds
-- description: The window a timestamp typed on the command line (.Value) names, read as the sink's window column
-- description: is (rules/instant.sql, zone-less in .Zone): the window end (.Edge end) or start (.Edge start), the
-- description: other edge .Size microseconds away. NULL when the value is not a timestamp.
-- returns: one row: window_start TIMESTAMPTZ, window_end TIMESTAMPTZ, start_text VARCHAR, end_text VARCHAR (RFC 3339, UTC)
SELECT window_start, window_end, strftime(window_start, '%Y-%m-%dT%H:%M:%SZ') AS start_text, strftime(window_end, '%Y-%m-%dT%H:%M:%SZ') AS end_text
FROM (SELECT {{if eq .Edge "end"}}make_timestamptz(epoch_us(t) - {{.Size}}) AS window_start, t AS window_end
             {{- else}}t AS window_start, make_timestamptz(epoch_us(t) + {{.Size}}) AS window_end{{end}}
      FROM (SELECT {{instant (lit .Value) "VARCHAR" .Zone true}} AS t))
