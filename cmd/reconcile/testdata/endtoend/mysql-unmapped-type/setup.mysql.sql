CREATE TABLE odd (entry_id VARCHAR(16), place POINT);
