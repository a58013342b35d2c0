-- The re-performance of the windowed sink
CREATE TABLE expected AS SELECT 1;
