-- statement: input_facts
-- description: The session's database and the account the server
-- description: authenticated (CURRENT_USER()) and the user as given (USER()),
-- description: for one input.
-- returns: database (NULL when none), current_user, user
SELECT DATABASE(), CURRENT_USER(), USER()
