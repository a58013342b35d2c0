-- check: bad_records
-- assertion: completeness, accuracy
-- description: Records of an input that could not be read, with bad_records: report (a Kafka value that is not
-- description: JSON, a CSV line of another number of fields, a value that is not its declared type, a measure that
-- description: is not a decimal number, a Parquet value the engine would read changed): no other check saw them,
-- description: so each is listed with its location, the column and value that could not be read (empty for a
-- description: record that does not decode as a whole) and the reason, and the control fails until they are
-- description: explained.
-- requires: bad_records
SELECT side, location, "column", value, reason FROM bad_records
