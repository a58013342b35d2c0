-- An unconstrained numeric column: 1.000…0 is written with 36 fraction
-- digits, all zeros (PostgreSQL keeps them: scale() is 36), beside a
-- 12-digit integer amount.
CREATE TABLE postings (
  entry_id text PRIMARY KEY,
  amount   numeric
);
INSERT INTO postings VALUES
('E1', 1.000000000000000000000000000000000000),
('E2', 123456789012),
('E3', -0.50);
