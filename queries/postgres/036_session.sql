-- statement: session
-- description: The database and user of a connection that describes the input's statement without reading it
-- description: (Schema, outside any transaction), to say who looked when the server refuses the statement.
-- returns: database name, user name
SELECT current_database(), current_user
