CREATE TABLE odd (entry_id text, wait interval);
