CREATE TABLE sink (entry_id text, amount numeric(18,2));
INSERT INTO sink VALUES ('E0000001', 915.85);
