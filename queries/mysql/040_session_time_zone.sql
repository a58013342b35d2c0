-- statement: session_time_zone
-- description: Sets the session's time zone to UTC as an offset, so the
-- description: server sends every TIMESTAMP as its UTC value and never
-- description: converts it through its own zone (the server's time-zone
-- description: tables may be empty, so a zone name could fail).
SET SESSION time_zone = '+00:00'
