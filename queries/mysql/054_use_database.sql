-- statement: use_database
-- description: Makes Database the session's database, for a later input read
-- description: in an earlier input's transaction (USE does not end it).
USE {{q .Database}}
