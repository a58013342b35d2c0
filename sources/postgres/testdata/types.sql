-- Edge values of every PostgreSQL type the postgres kind maps. types.csv
-- holds the same values as text; postgres_test.go compares the two loads
-- column by column, and cmd/reconcile's tests reconcile them.
CREATE TABLE types (
  id    integer PRIMARY KEY,
  i2    smallint,
  i4    integer,
  i8    bigint,
  n182  numeric(18,2),
  n3810 numeric(38,10),
  nu    numeric,
  nneg  numeric(5,-2),
  nsmall numeric(3,5),
  f4    real,
  f8    double precision,
  t     text,
  vc    varchar(10),
  c     char(5),
  b     boolean,
  d     date,
  ts    timestamp,
  tstz  timestamptz,
  u     uuid,
  j     json,
  jb    jsonb,
  by    bytea
);
INSERT INTO types VALUES
(1, -32768, -2147483648, -9223372036854775808, -9999999999999999.99, -9999999999999999999999999999.9999999999,
    1234567890123456789012345678.1234567890, -9999900, -0.00999, -16777216, -1.7976931348623157e308,
    'ünïcødé ✓ "quoted", comma', 'abc', 'ab', true, '0001-01-01', '1900-02-28 23:59:59.999999',
    '2026-03-29 01:30:00+02', '00000000-0000-0000-0000-000000000000', '{"b": 1,  "a": [1, 2.50]}',
    '{"b": 1,  "a": [1, 2.50]}', '\x00ff10'),
(2, 32767, 2147483647, 9223372036854775807, 9999999999999999.99, 9999999999999999999999999999.9999999999,
    -0.0000000001, 9999900, 0.00999, 1.5, 5e-324,
    '  padded  ', 'ten chars!', 'abcde', false, '9999-12-31', '2000-01-01 00:00:00.000001',
    '1969-12-31 23:59:59.999999+00', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '[]', '[]', '\x7f'),
(3, 0, 0, 0, 0.01, 0.0000000001, 100000000, 100, 0.00001, -0.25, 0.1,
    'line one', 'x', 'a', NULL, '1969-12-31', '1970-01-01 00:00:00',
    '2026-11-27 00:00:31+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'null', '{"a": null}', '\x5c'),
(4, NULL, NULL, NULL, -0.01, NULL, -100000000.5, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
