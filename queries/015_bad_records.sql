-- check: bad_records
-- assertion: completeness, accuracy
-- description: Records of an input that could not be decoded (a Kafka value that is not JSON, with bad_records:
-- description: report): no other check saw them, so each is listed with its location and the reason, and the control
-- description: fails until they are explained.
-- requires: bad_records
SELECT side, location, reason FROM bad_records
