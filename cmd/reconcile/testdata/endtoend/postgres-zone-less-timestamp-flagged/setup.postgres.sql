-- A zone-less timestamp column in the source, compared with a zoned one in
-- the sink: the evidence flags it (a note on posted_at).
CREATE TABLE src (entry_id text, amount numeric(10,2), posted_at timestamp);
CREATE TABLE snk (entry_id text, amount numeric(10,2), posted_at timestamptz);
INSERT INTO src VALUES ('E1', 1.00, '2026-11-27 00:00:31');
INSERT INTO snk VALUES ('E1', 1.00, '2026-11-27 00:00:31+00');
