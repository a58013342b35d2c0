CREATE TABLE snk (entry_id text, amount numeric(10,2));
INSERT INTO snk VALUES ('E1', 1.50), ('E2', 2.25);
