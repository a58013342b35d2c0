-- statement: begin
-- description: Starts the transaction in which a run is recorded: the run, its inputs, measures, checks and
-- description: exceptions are all written, or none.
BEGIN TRANSACTION
