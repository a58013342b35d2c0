-- statement: fingerprint
-- description: What Trino can attest of relation .Relation's rows in one pass: their count and, for each column of
-- description: .Columns, checksum() — an order-insensitive hash of its values — as lower-case hex. Taken before the
-- description: checks and, for an input no version pins, after them too: a difference means the input changed.
-- returns: rows BIGINT, then one varchar per column
SELECT count(*){{range .Columns}}, lower(to_hex(checksum({{q .}}))){{end}}
FROM {{.Relation}}
