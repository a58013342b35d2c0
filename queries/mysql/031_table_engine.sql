-- statement: table_engine
-- description: The storage engine and kind of a table (arguments as for
-- description: table_columns): a consistent snapshot holds only for a
-- description: transactional engine (InnoDB), which the evidence says.
-- returns: ENGINE (NULL for a view), TABLE_TYPE
SELECT ENGINE, TABLE_TYPE
FROM information_schema.TABLES
WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?
