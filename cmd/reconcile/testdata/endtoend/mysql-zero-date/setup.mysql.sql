-- A zero date, which the server accepts with an empty sql_mode.
SET SESSION sql_mode = '';
CREATE TABLE zero (entry_id VARCHAR(16), posted DATE);
INSERT INTO zero VALUES ('E0000001', '0000-00-00');
